// The user's session in this browser, whatever their role: sign-in and its errors, the settings
// and where they are kept, and the phone of the signed-in user. Nothing here is call-center
// specific; src/cc builds on it.
export * from "./session";
export * from "./settings";
export * from "./sign-in-error";
export * from "./platform-address";
export * from "./storage";
export * from "./phone-session";
export * from "./phone-owner";
export * from "./ice-servers";
export * from "./shortcuts";
// The call history (./call-history) is imported directly: only the history panel loads it, on demand.
