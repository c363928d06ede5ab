export * from "./session";
export * from "./settings";
export * from "./sign-in-error";
export * from "./platform-address";
export * from "./storage";
export * from "./phone-session";
export * from "./call-history";
export * from "./ice-servers";
