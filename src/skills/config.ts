/** The `skills` section of the configuration. Every field has a default, so `skills: {}` is a working setup. */
import { z } from "zod";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const bytes = z.number().int().positive();

export const skillsConfigSchema = z
  .strictObject({
    /** More skill roots, after the bundled and the user folder; a later root overrides a same-named skill. */
    extraDirs: z.array(z.string().min(1)).default([]),
    /** Watch the roots and reload added, changed and removed skills without a restart. */
    watch: z.boolean().default(true),
    /** Quiet time after the last change before a reload. */
    watchDebounceMs: z.number().int().min(0).max(60_000).default(300),
    /** Wall-clock limit of one script run; the whole process tree is killed after it. */
    scriptTimeoutMs: z.number().int().positive().default(60_000),
    /** Cap on what a script run keeps of stdout, and separately of stderr; the rest is dropped and marked. */
    maxOutputBytes: bytes.default(1_048_576),
    /** Files a run created that are larger than this are listed but not copied to destination_path. */
    maxArtifactBytes: bytes.default(50 * 1_048_576),
    /** Budget of the level-1 skills catalog in the system prompt (about 4 characters a token). */
    catalogTokenBudget: z.number().int().min(200).default(1_500),
    /** Budget for the bodies of the skills a session equipped, added to its system prompt each turn. */
    equippedTokenBudget: z.number().int().min(100).default(6_000),
    /**
     * Lets chat users call install_skill (still only those the access policy grants "admin"); the CLI can always
     * install. Off by default: installing is running new code.
     */
    installFromChat: z.boolean().default(false),
    /** Environment variables granted to one skill's scripts: { "skill-name": { VAR: "value" } }. */
    env: z
      .record(z.string().min(1), z.record(z.string().regex(ENV_NAME, "must be an environment variable name"), z.string()))
      .default({}),
  })
  .prefault({});

export type SkillsConfig = z.output<typeof skillsConfigSchema>;
