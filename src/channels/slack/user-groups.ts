/**
 * The user groups of the workspace as the sender's `roles` (access rules name them: `roles: ["S0123"]`). One
 * usergroups.list call with members serves every message for a few minutes; without the usergroups:read scope the
 * senders hold no roles, which is said once in the log.
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../infra/log.js";
import { describeFailure } from "./api.js";

const REFRESH_MS = 5 * 60_000;

export class SlackUserGroups {
  private byUser = new Map<string, string[]>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  private warned = false;

  constructor(
    private readonly client: WebClient,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The ids of the user groups `user` is in. */
  async of(user: string): Promise<string[]> {
    if (this.now() - this.fetchedAt > REFRESH_MS) {
      this.loading ??= this.load().finally(() => (this.loading = undefined));
      await this.loading;
    }
    return this.byUser.get(user) ?? [];
  }

  private async load(): Promise<void> {
    try {
      const result = await this.client.usergroups.list({ include_users: true });
      const byUser = new Map<string, string[]>();
      for (const group of result.usergroups ?? []) {
        for (const member of group.users ?? []) byUser.set(member, [...(byUser.get(member) ?? []), group.id ?? ""]);
      }
      this.byUser = byUser;
    } catch (err) {
      if (!this.warned) this.log.warn({ reason: describeFailure(err) }, "could not read the Slack user groups (scope usergroups:read); senders hold no roles");
      this.warned = true;
    }
    this.fetchedAt = this.now();
  }
}
