export * from "./session";
export * from "./settings";
export * from "./sign-in-error";
export * from "./platform-address";
export * from "./storage";
