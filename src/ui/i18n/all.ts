import { en, type Messages } from "./en";
import { enPanels } from "./en-panels";
import { enWorkspace } from "./en-workspace";
import { withPart } from "./index";
import type { Language } from "./language";
import { zhCN } from "./zh-CN";

/** Every catalogue at once, for tests that compare languages; the app loads them one by one. */
export const catalogues: Record<Language, Messages> = {
  en: withPart(withPart(en as Messages, enWorkspace), enPanels),
  "zh-CN": zhCN,
};
