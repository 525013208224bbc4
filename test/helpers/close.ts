/** Closes what a test opened, in the order given (a gateway before the fake platform it talks to), skipping what was never opened. */
export async function closeInOrder(opened: ReadonlyArray<{ close(): Promise<unknown> } | undefined>): Promise<void> {
  for (const thing of opened) await thing?.close();
}
