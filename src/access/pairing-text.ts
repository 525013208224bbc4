/** What people read about pairing: the code prompt, approval results and the list; shared by /pair and the CLI. */
import type { Translate } from "../core/i18n.js";
import type { ChannelName } from "../core/types.js";
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

export function describeApproval(approval: Approval, channel: ChannelName, code: string): string {
  if (approval.ok) {
    const { member } = approval;
    return `Approved ${member.name ?? member.userId} (${channel}:${member.userId}). They can chat with me now.`;
  }
  switch (approval.reason) {
    case "malformed":
      return `"${code}" is not a pairing code: codes have 8 characters, letters and digits without 0, O, 1 and I.`;
    case "unknown":
      return `No pending ${channel} pairing request has the code "${code}" (codes expire after ${minutes(CODE_TTL_MS)} minutes).`;
    case "locked":
      return `Too many wrong ${channel} pairing codes: approvals on ${channel} are paused for up to ${minutes(FAILED_APPROVALS_WINDOW_MS)} minutes.`;
  }
}

export function describeDenial(denied: PendingPairing | undefined, channel: ChannelName, code: string): string {
  if (!denied) return `No pending ${channel} pairing request has the code "${code}".`;
  return `Denied the pairing request of ${denied.name ?? denied.userId} (${channel}:${denied.userId}).`;
}

/** The owner's notice of a new pairing request, above its Approve / Deny buttons. */
export function ownerPairingNotice(request: PendingPairing, now: number): string {
  const who = `${request.name ?? "Someone"} (${request.channel}:${request.userId})`;
  return `${who} asks to chat with me. Pairing code ${request.code}, valid for ${minutes(request.expiresAt - now)} more minutes.`;
}

export function describePending(pending: readonly PendingPairing[], now: number): string[] {
  return pending.map(
    (p) =>
      `${p.channel} ${p.code}  ${p.name ?? "(no name)"} (${p.channel}:${p.userId}), expires in ${minutes(p.expiresAt - now)} min`,
  );
}

export function describeMembers(members: readonly PairedMember[]): string[] {
  return members.map(
    (m) => `${m.channel}:${m.userId}  ${m.name ?? "(no name)"}, approved ${new Date(m.approvedAt).toISOString()} by ${m.approvedBy}`,
  );
}
