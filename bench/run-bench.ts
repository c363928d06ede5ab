/**
 * Runs a bench's `main`, cleans up whatever happens (Ctrl-C too) and leaves explicitly: a bench
 * that started the platform loaded native WebRTC, which would keep the process alive.
 */
export async function runBench(name: string, main: () => Promise<void>, cleanUp: () => Promise<void>): Promise<never> {
  let failed = false;
  process.once("SIGINT", () => void cleanUp().finally(() => process.exit(130)));
  try {
    await main();
  } catch (e) {
    failed = true;
    console.error(`${name} bench failed:`, e instanceof Error ? e.message : e);
  } finally {
    await cleanUp();
  }
  process.exit(failed ? 1 : 0);
}
