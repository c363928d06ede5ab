export { PlatformClient, DEFAULT_TIMEOUT_MS, type Credentials, type PlatformClientOptions } from "./client";
export { PlatformError, type PlatformErrorKind } from "./errors";
export * from "./sessions";
export * from "./users";
export * from "./dev-keys";
export * from "./cc";
export type { Paged } from "./schemas";
// The call records (./cdrs) are imported directly: only the history loads them, on demand.
