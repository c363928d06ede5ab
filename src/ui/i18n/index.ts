import { en, type Messages } from "./en";
import type { Language } from "./language";
import { zhCN } from "./zh-CN";

export const catalogues: Record<Language, Messages> = { en, "zh-CN": zhCN };
export type { Messages };
export * from "./language";
export * from "./format";
