export * from "./agent-session";
export * from "./command-error";
export * from "./agent-status";
export * from "./queue-calls";
export * from "./wrap-up";
export * from "./event-feed";
