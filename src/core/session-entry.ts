/** A session as the console lists it: where it lives and a short preview. Kept by the session directory, read by the console's sessions page. */
export interface SessionEntry {
  key: string;
  channel: string;
  chatId: string;
  chatTitle?: string;
  userId: string;
  userName?: string;
  /** The start of the latest message, for the list. */
  preview: string;
  updatedAt: number;
}
