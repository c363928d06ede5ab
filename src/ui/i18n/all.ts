import { en, type Messages } from "./en";
import { enWorkspace } from "./en-workspace";
import type { Language } from "./language";
import { zhCN } from "./zh-CN";

/** Every catalogue at once, for tests that compare languages; the app loads them one by one. */
export const catalogues: Record<Language, Messages> = { en: { ...en, ...enWorkspace }, "zh-CN": zhCN };
