/** What the approvals suites share: the call they approve, and members who may make it in a group. */
import type { RiskClass } from "../../src/core/tools.js";

/** A call of a tool the suites list in approvals.tools, whose result shows whether it ran (bytesWritten). */
export const WRITE_NOTE = { name: "write_file", arguments: { path: "note.txt", content: "hello" } };

/** access.permissions letting members write files in groups too, so another member is there to press. */
export const MEMBERS_WRITE_IN_GROUPS: { member: { direct: RiskClass[]; group: RiskClass[] } } = {
  member: { direct: ["read", "chat", "web", "workspace", "exec"], group: ["read", "chat", "web", "workspace"] },
};
