/**
 * User profile tools: update_user_profile, get_user_profile, skip_profile_question. Always the sender's own
 * profile. Its time zone is the one /timezone sets (the scheduler's record), so reminders and the profile agree.
 */
import { z } from "zod";
import { PROFILE_FIELDS, PROFILE_LABELS, type Profile, type ProfileStore, type ProfileUser, type TimezoneRecord } from "../memory/profile.js";
import { MemoryError } from "../memory/types.js";
import { canonicalZone } from "../scheduler/zones.js";
import type { ZonePreferences } from "../scheduler/zone-preferences.js";
import { asMemoryTool } from "./memory.js";
import { implementTool, type ToolContext, type ToolHandlerSpec } from "../core/tools.js";

const CATEGORY = "User Profile";
const field = z.enum(PROFILE_FIELDS).describe("name, language (preferred), timezone (IANA), location, occupation or notes");

/** The profile's time zone is the scheduler's per-user zone preference. */
export function timezoneRecordOf(zones: ZonePreferences): TimezoneRecord {
  return {
    get: (user) => zones.getForUser(user),
    set: async (user, zone) => {
      const canonical = canonicalZone(zone);
      if (!canonical) throw new MemoryError(`"${zone}" is not a time zone; use an IANA name such as Europe/Berlin or Asia/Shanghai.`, "invalid");
      await zones.setForUser(user, canonical);
      return canonical;
    },
    clear: (user) => zones.clearForUser(user),
  };
}

const userOf = (ctx: ToolContext): ProfileUser => ({ channel: ctx.channel, userId: ctx.senderId });

function profileView(profile: Profile): Record<string, unknown> {
  return {
    ...profile.fields,
    not_set: PROFILE_FIELDS.filter((f) => profile.fields[f] === undefined && !profile.skipped.includes(f)),
    declined: profile.skipped,
  };
}

export function createProfileHandler(profiles: ProfileStore): ToolHandlerSpec {
  const update = implementTool(
    {
      name: "update_user_profile",
      category: CATEGORY,
      shortDescription: "Save one field of the user's profile: name, language, time zone...",
      description: [
        "Sets one field of the sender's profile, shown to you in every later turn: name (what to call them),",
        "language (the one they prefer you to answer in), timezone (an IANA name like Europe/Berlin; the same",
        "setting as /timezone, used for reminders too), location, occupation, notes. An empty value clears it.",
        "",
        "When to use: the user tells you one of these about themselves, or answers a profile question.",
        "",
        "Caveats: only the sender's own profile; values are what they said, kept short. An unknown time zone is",
        "an error: ask for a city and use its zone.",
        "",
        'Example: update_user_profile({"field": "timezone", "value": "Asia/Shanghai"})',
      ].join("\n"),
      input: z.object({ field, value: z.string().max(1_000).describe("The new value; empty clears the field") }),
      risk: "chat",
    },
    (input, ctx) =>
      asMemoryTool(async () => {
        const value = await profiles.update(userOf(ctx), input.field, input.value);
        return { field: input.field, value, status: value === "" ? "cleared" : "saved" };
      }),
  );

  const get = implementTool(
    {
      name: "get_user_profile",
      category: CATEGORY,
      shortDescription: "Show the user's profile: the fields they set and those not yet known",
      description: [
        "Returns the sender's profile fields, the fields not set yet, and those they declined to answer.",
        "",
        "When to use: the user asks what you know about them, or before asking a profile question.",
        "",
        'Example: get_user_profile({})',
      ].join("\n"),
      input: z.object({}),
      risk: "read",
    },
    async (_input, ctx) => profileView(await profiles.get(userOf(ctx))),
  );

  const skip = implementTool(
    {
      name: "skip_profile_question",
      category: CATEGORY,
      shortDescription: "Record that the user would rather not answer a profile question",
      description: [
        "Marks a profile field as declined: it is no longer listed as unknown, so you do not ask about it again.",
        "Setting the field later with update_user_profile lifts the mark.",
        "",
        "When to use: the user declines or ignores a question about their name, language, time zone, location,",
        "occupation or notes.",
        "",
        'Example: skip_profile_question({"field": "occupation"})',
      ].join("\n"),
      input: z.object({ field }),
      risk: "chat",
    },
    async (input, ctx) => {
      await profiles.skip(userOf(ctx), input.field);
      return { field: input.field, status: `will not ask about the ${PROFILE_LABELS[input.field]} again` };
    },
  );

  const implementations = [update, get, skip];
  return { name: "profile", tools: implementations };
}
