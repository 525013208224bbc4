/**
 * The approvals plug: the tool gate every call passes (set on the handler registry), /approve and /deny, and the
 * console's list of requests. It sits first in the feature list so that no feature's tool runs ungated.
 */
import { approvalCommands } from "../approvals/commands.js";
import { approvalsConfigSchema } from "../approvals/config.js";
import { approvalRoutes } from "../approvals/console-routes.js";
import { ApprovalGate } from "../approvals/gate.js";
import { ApprovalRequests } from "../approvals/requests.js";
import { defineFeature } from "./module.js";

export const approvalsFeature = defineFeature({
  name: "approvals",
  configSchema: approvalsConfigSchema,
  // The owners may answer any request, and only they may approve a tool for good in a chat.
  reads: ["access"],
  create: (deps) => {
    const requests = new ApprovalRequests(deps.store, deps.log);
    const owners = (deps.sections.access as { owners?: readonly string[] } | undefined)?.owners ?? [];
    const gate = new ApprovalGate({
      settings: deps.settings,
      requests,
      grants: deps.store.namespace<unknown>("approvals"),
      messages: deps.buttons,
      ownersOn: (channel) => owners.filter((owner) => owner.startsWith(`${channel}:`)).map((owner) => owner.slice(channel.length + 1)),
      secrets: deps.secrets,
      clock: deps.clock,
      log: deps.log,
    });
    deps.registry.useGate(gate);
    return {
      requests,
      commands: approvalCommands({ requests, isOwner: deps.isOwner, clock: deps.clock }),
      consoleRoutes: { approvals: approvalRoutes(requests, deps.clock) },
      stop: () => requests.close(),
    };
  },
});
