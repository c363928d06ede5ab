/** Failures are reported elsewhere (the phone's notices, the toolbar's error line); here they go to the log. */
export const act = (p: Promise<unknown>) =>
  void p.catch((e: unknown) => console.warn("agentbar: phone action failed", e));
