/** What people read about pairing: the code prompt, approval results and the list; shared by /pair and the CLI. */
import type { Translate } from "../core/i18n.js";
import type { ChannelName } from "../core/types.js";
import { ENGLISH } from "../infra/i18n/index.js";
import {
  CODE_TTL_MS,
  FAILED_APPROVALS_WINDOW_MS,
  type Approval,
  type PairedMember,
  type PairingRequest,
  type PendingPairing,
} from "./pairing.js";

const minutes = (ms: number): number => Math.max(1, Math.ceil(ms / 60_000));

/** The stranger's answer, in their language. */
export function pairingPrompt(channel: ChannelName, request: PairingRequest, now: number, t: Translate): string {
  if (request.status === "full") return t("access.pairingFull", { minutes: minutes(CODE_TTL_MS) });
  return t("access.pairingCode", { code: request.code, channel, minutes: minutes(request.expiresAt.getTime() - now) });
}

export function describeApproval(approval: Approval, channel: ChannelName, code: string, t: Translate = ENGLISH.t): string {
  if (approval.ok) {
    const { member } = approval;
    return t("pairing.approved", { name: member.name ?? member.userId, channel, userId: member.userId });
  }
  switch (approval.reason) {
    case "malformed":
      return t("pairing.malformed", { code });
    case "unknown":
      return t("pairing.unknown", { channel, code, minutes: minutes(CODE_TTL_MS) });
    case "locked":
      return t("pairing.locked", { channel, minutes: minutes(FAILED_APPROVALS_WINDOW_MS) });
  }
}

export function describeDenial(denied: PendingPairing | undefined, channel: ChannelName, code: string, t: Translate): string {
  if (!denied) return t("pairing.noSuchRequest", { channel, code });
  return t("pairing.denied", { name: denied.name ?? denied.userId, channel, userId: denied.userId });
}

/** The owner's notice of a new pairing request, above its Approve / Deny buttons. */
export function ownerPairingNotice(request: PendingPairing, now: number, t: Translate): string {
  const { channel, userId, code } = request;
  return t("pairing.ownerNotice", { name: request.name ?? t("pairing.someone"), channel, userId, code, minutes: minutes(request.expiresAt - now) });
}

export function describePending(pending: readonly PendingPairing[], now: number, t: Translate = ENGLISH.t): string[] {
  return pending.map((p) =>
    t("pairing.pendingLine", { channel: p.channel, code: p.code, name: p.name ?? t("pairing.noName"), userId: p.userId, minutes: minutes(p.expiresAt - now) }),
  );
}

export function describeMembers(members: readonly PairedMember[]): string[] {
  return members.map(
    (m) => `${m.channel}:${m.userId}  ${m.name ?? "(no name)"}, approved ${new Date(m.approvedAt).toISOString()} by ${m.approvedBy}`,
  );
}
