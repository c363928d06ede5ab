/**
 * Runs tasks one after the other. Two re-INVITEs may not overlap in a dialog (sip.js rejects the
 * second with RequestPendingError), and a hold pressed twice must not race its own resume.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
