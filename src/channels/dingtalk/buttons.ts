/**
 * Buttons on DingTalk: the last part of a reply goes as an ActionCard message (`sampleActionCard` with one button,
 * `sampleActionCard2`...`6` with more), each button a `dtmd://dingtalkclient/sendMessage` link. Pressing it makes the
 * presser's client send the button's marker text to the robot, which arrives as a robot message and is handed
 * over as a press; the gateway checks the action id against its records like any press.
 */
import type { ButtonRow } from "../../core/types.js";

const MAX_BUTTONS = 6;
const MARKER = /^⟦press ([A-Za-z0-9_-]{1,32})⟧$/u;

/** The robot API's msgKey and msgParam of an ActionCard showing `markdown` with these buttons. */
export function actionCard(title: string, markdown: string, rows: ButtonRow[]): { msgKey: string; msgParam: Record<string, unknown> } {
  const buttons = rows.flat().slice(0, MAX_BUTTONS);
  const linkOf = (actionId: string) => `dtmd://dingtalkclient/sendMessage?content=${encodeURIComponent(`⟦press ${actionId}⟧`)}`;
  if (buttons.length === 1) {
    return { msgKey: "sampleActionCard", msgParam: { title, text: markdown, singleTitle: buttons[0]!.label, singleURL: linkOf(buttons[0]!.actionId) } };
  }
  const param: Record<string, unknown> = { title, text: markdown };
  buttons.forEach((b, i) => {
    param[`actionTitle${i + 1}`] = b.label;
    param[`actionURL${i + 1}`] = linkOf(b.actionId);
  });
  return { msgKey: `sampleActionCard${buttons.length}`, msgParam: param };
}

/** The action id a robot message presses, when its text is a button's marker. */
export function pressedAction(text: string): string | undefined {
  return MARKER.exec(text.trim())?.[1];
}
