import { useState } from "preact/hooks";
import { HeadsetIcon, SettingsIcon } from "../icons";
import type { Layout } from "../layout";
import { withEnglishPanels } from "../i18n";
import { lazy } from "../lazy";
import { useModel } from "../model/model";
import { Popover } from "../shared/popover";
import { CallList } from "./call-list";
import { DialPad } from "./dial-pad";
import { PhoneNotices } from "./notices";
import { RegistrationChip } from "./registration-chip";

// Opened by few and rarely: their code comes when they are first opened.
const DevicesPanel = lazy(() => withEnglishPanels(import("./devices-panel")).then((m) => m.DevicesPanel));
const PhoneSettingsPanel = lazy(() =>
  withEnglishPanels(import("../settings/phone-settings")).then((m) => m.PhoneSettingsPanel),
);

/** The phone in the bar: one line, panels in popovers. */
function BarPhone() {
  const m = useModel().t.value.phone;
  return (
    <div class="bar-phone">
      <RegistrationChip compact />
      <DialPad compact />
      <CallList compact />
      <PhoneNotices compact />
      <Popover label={m.devices} icon={<HeadsetIcon />}>
        <DevicesPanel />
      </Popover>
      <Popover label={m.settings} icon={<SettingsIcon />} class="phone-settings">
        <PhoneSettingsPanel />
      </Popover>
    </div>
  );
}

/** The phone stacked (side panel, full page): status, notices, calls, dial pad, then the panels on demand. */
export function PhonePanel({ layout }: { layout: Layout }) {
  const m = useModel().t.value.phone;
  const [panel, setPanel] = useState<"devices" | "settings" | null>(null);
  if (layout === "bar") return <BarPhone />;
  const toggle = (name: "devices" | "settings") => setPanel(panel === name ? null : name);
  return (
    <div class="phone-panel">
      <div class="phone-top">
        <RegistrationChip />
        <div class="phone-tools">
          <button
            type="button"
            class="icon-button"
            aria-label={m.devices}
            title={m.devices}
            aria-expanded={panel === "devices"}
            onClick={() => toggle("devices")}
          >
            <HeadsetIcon />
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label={m.settings}
            title={m.settings}
            aria-expanded={panel === "settings"}
            onClick={() => toggle("settings")}
          >
            <SettingsIcon />
          </button>
        </div>
      </div>
      {panel === "devices" && <DevicesPanel />}
      {panel === "settings" && <PhoneSettingsPanel />}
      <PhoneNotices />
      <CallList />
      <DialPad />
    </div>
  );
}
