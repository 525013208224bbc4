/** Builders of the schema 2.0 event envelopes Feishu pushes, for tests. Ids are unique unless given. */
import { randomUUID } from "node:crypto";

export interface MessageSpec {
  chatId?: string;
  chatType?: "p2p" | "group";
  messageId?: string;
  eventId?: string;
  senderOpenId?: string;
  senderUserId?: string;
  senderType?: "user" | "app";
  messageType?: string;
  /** An object is sent as its JSON string. */
  content: object | string;
  mentions?: Array<{ key: string; openId: string; name: string }>;
  rootId?: string;
  parentId?: string;
  threadId?: string;
  /** The verification token the header carries. */
  token?: string;
}

export interface Envelope {
  schema: "2.0";
  header: Record<string, unknown>;
  event: { sender: Record<string, unknown>; message: Record<string, unknown> & { message_id: string; chat_id: string } };
}

let counter = 0;

export function messageEvent(spec: MessageSpec): Envelope {
  counter += 1;
  const messageId = spec.messageId ?? `om_in_${counter}_${randomUUID().slice(0, 8)}`;
  return {
    schema: "2.0",
    header: {
      event_id: spec.eventId ?? `ev_${randomUUID()}`,
      event_type: "im.message.receive_v1",
      create_time: String(Date.now()),
      token: spec.token ?? "verify-token",
      app_id: "cli_a1b2c3d4e5f60718",
      tenant_key: "tenant-fake",
    },
    event: {
      sender: {
        sender_id: { open_id: spec.senderOpenId ?? "ou_alice", user_id: spec.senderUserId ?? "u_alice", union_id: "on_alice" },
        sender_type: spec.senderType ?? "user",
        tenant_key: "tenant-fake",
      },
      message: {
        message_id: messageId,
        root_id: spec.rootId ?? "",
        parent_id: spec.parentId ?? "",
        thread_id: spec.threadId ?? "",
        create_time: String(Date.now()),
        update_time: String(Date.now()),
        chat_id: spec.chatId ?? "oc_p2p_alice",
        chat_type: spec.chatType ?? "p2p",
        message_type: spec.messageType ?? "text",
        content: typeof spec.content === "string" ? spec.content : JSON.stringify(spec.content),
        mentions: (spec.mentions ?? []).map((m) => ({
          key: m.key,
          id: { open_id: m.openId, user_id: "", union_id: "" },
          name: m.name,
          tenant_key: "tenant-fake",
        })),
        user_agent: "fake",
      },
    },
  };
}

export function textEvent(text: string, spec: Omit<MessageSpec, "content" | "messageType"> = {}): Envelope {
  return messageEvent({ ...spec, messageType: "text", content: { text } });
}

/** An event of another type, which the gateway acknowledges and ignores. */
export function otherEvent(eventType: string, token = "verify-token"): object {
  return { schema: "2.0", header: { event_id: `ev_${randomUUID()}`, event_type: eventType, token }, event: {} };
}

export interface CardActionSpec {
  /** The open_id of who pressed. */
  operatorOpenId: string;
  /** The card message and its chat. */
  messageId: string;
  chatId: string;
  /** The button's callback value. */
  value: Record<string, unknown>;
  token?: string;
}

/** A card.action.trigger callback as Feishu sends it when a card's callback button is pressed. */
export function cardActionEvent(spec: CardActionSpec): object {
  return {
    schema: "2.0",
    header: {
      event_id: `ev_${randomUUID()}`,
      event_type: "card.action.trigger",
      create_time: String(Date.now() * 1000),
      token: spec.token ?? "verify-token",
      app_id: "cli_a1b2c3d4e5f60718",
      tenant_key: "tenant-fake",
    },
    event: {
      operator: { tenant_key: "tenant-fake", open_id: spec.operatorOpenId, union_id: `on_${spec.operatorOpenId}` },
      token: `c-${randomUUID()}`,
      action: { value: spec.value, tag: "button" },
      host: "im_message",
      context: { open_message_id: spec.messageId, open_chat_id: spec.chatId },
    },
  };
}
