export * from "./session";
export * from "./settings";
export * from "./sign-in-error";
export * from "./platform-address";
export * from "./storage";
export * from "./phone-session";
export * from "./ice-servers";
// The call history (./call-history) is imported directly: only the history panel loads it, on demand.
export * from "./agent-session";
export * from "./command-error";
export * from "./agent-status";
export * from "./queue-calls";
export * from "./wrap-up";
export * from "./shortcuts";
export * from "./agent-events";
