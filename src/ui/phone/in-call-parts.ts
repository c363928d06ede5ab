import { withEnglishPanels } from "../i18n";

/** The code of what only an answered call shows (in-call.tsx), with the English it reads. */
export const inCall = () => withEnglishPanels(import("./in-call"));
