// Waiting for something another part of the system does in its own time (a writer, a poller, a callback).

/** Wait until `cond` holds; throws naming `what` if it never does (~6 s). */
export async function until(cond: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await cond()) return;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`never happened: ${what}`);
}

/** Whether `cond` holds within `ms` (checked every 20 ms, and once more at the end). */
export async function eventually(cond: () => Promise<boolean> | boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}
