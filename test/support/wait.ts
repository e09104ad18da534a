// Waiting for something another part of the system does in its own time (a writer, a poller, a callback).

/** Wait until `cond` holds; throws naming `what` if it never does (~6 s). */
export async function until(cond: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await cond()) return;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`never happened: ${what}`);
}
