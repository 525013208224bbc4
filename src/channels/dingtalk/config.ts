/** The `channels.dingtalk` settings: a DingTalk (钉钉) app with the robot capability, messages by Stream mode. */
import { z } from "zod";

export const dingtalkConfigSchema = z
  .strictObject({
    /** null: enabled when clientId and clientSecret are set. */
    enabled: z.boolean().nullable().default(null),
    /** The app's Client ID (formerly AppKey). */
    clientId: z.string().min(1).nullable().default(null),
    /** The app's Client Secret (formerly AppSecret). */
    clientSecret: z.string().min(1).nullable().default(null),
    /** The robot's code; null: the client id (what DingTalk gives an app's robot). */
    robotCode: z.string().min(1).nullable().default(null),
    apiUrl: z.url({ protocol: /^https?$/ }).default("https://api.dingtalk.com"),
    /** The older API host: media uploads, and the host of the session webhooks replies may use. */
    oapiUrl: z.url({ protocol: /^https?$/ }).default("https://oapi.dingtalk.com"),
    /** Replies as DingTalk Markdown messages or plain text. */
    replyFormat: z.enum(["markdown", "text"]).default("markdown"),
    /** Longest reply message in characters; longer replies are split. */
    maxMessageLength: z.number().int().min(200).max(5_000).default(4_000),
    /** The AI card template (卡片平台) whose `cardContentKey` variable streams live replies; null: no streaming. */
    cardTemplateId: z.string().min(1).nullable().default(null),
    /** The template's streaming text variable. */
    cardContentKey: z.string().min(1).default("content"),
  })
  .prefault({});

export type DingtalkConfig = z.output<typeof dingtalkConfigSchema>;

/** The settings with the credentials present and the robot code resolved. */
export type DingtalkSettings = DingtalkConfig & { clientId: string; clientSecret: string; robotCode: string };

export function completeSettings(config: DingtalkConfig): DingtalkSettings {
  const { clientId, clientSecret } = config;
  if (clientId === null || clientSecret === null) throw new Error("The DingTalk channel needs DINGTALK_CLIENT_ID and DINGTALK_CLIENT_SECRET");
  return { ...config, clientId, clientSecret, robotCode: config.robotCode ?? clientId };
}

export const dingtalkFix =
  "check DINGTALK_CLIENT_ID / DINGTALK_CLIENT_SECRET (应用开发 > your app > 凭证与基础信息), that the robot is added " +
  "with 消息接收模式 Stream模式, and that the app version is published";
