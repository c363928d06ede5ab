import { version } from "../../package.json";
import { redactUrl, scrubSecrets, type PhoneDiagnostics } from "../softphone";
import type { PhoneSession } from "./phone-session";
import type { SessionStore } from "./session";
import { settingsOf, type Settings, type SettingsStore } from "./settings";

/**
 * The file an agent downloads (or a CRM asks for through the embedding API) when calls go wrong:
 * everything support needs to see what happened, and nothing that would let anyone act as the
 * agent. Loaded on demand (the page does not carry it until it is asked for).
 */
export interface DiagnosticsBundle {
  format: "agentbar-diagnostics/1";
  createdAt: string;
  app: { name: string; version: string; page: string };
  browser: {
    userAgent: string;
    /** Brand and version list, where the browser gives it (User-Agent Client Hints). */
    brands?: Array<{ brand: string; version: string }>;
    platform?: string;
    languages: readonly string[];
    online?: boolean;
    secureContext?: boolean;
    timeZone: string;
  };
  /** Where the app talks to: the platform's address, and the SIP and event URLs in use. */
  platform: { address: string; sipWebSocketUrl: string; eventChannelUrl: string };
  /** Who was signed in (no token). */
  account: { login: string; extension: string; domain: string; role: string } | null;
  /** The app's settings, without credentials. */
  settings: DiagnosticsSettings;
  phone: PhoneDiagnostics;
}

export type DiagnosticsSettings = Omit<Settings, "iceServers"> & {
  iceServers: Array<{ urls: string; withCredential: boolean }>;
};

/** The app as it names itself in a bundle. */
export const APP = { name: "Agentbar", version };

/**
 * What a bundle is made of: the user's session, the settings and the phone (every surface that
 * offers the bundle, the devices panel and the embedding API, has them), and facts of the page
 * that default to the browser's own.
 */
export interface DiagnosticsSources {
  session: SessionStore;
  settings: SettingsStore;
  phoneSession: Pick<PhoneSession, "store" | "phone">;
  app?: { name: string; version: string };
  /** The page's own address and origin ("" platform address means this origin). */
  pageHref?: string;
  pageOrigin?: string;
  navigator?: BrowserFacts;
  secureContext?: boolean;
  now?: () => number;
}

type BrowserFacts = Partial<Pick<Navigator, "userAgent" | "languages" | "onLine">> & {
  userAgentData?: { brands?: Array<{ brand: string; version: string }>; platform?: string };
};

/** Builds the bundle from what the app holds now. */
export function buildDiagnosticsBundle(src: DiagnosticsSources): DiagnosticsBundle {
  const now = src.now ?? Date.now;
  const session = src.session.getState();
  const settings = settingsOf(src.settings.getState());
  const nav: BrowserFacts | undefined =
    src.navigator ?? (typeof navigator === "object" ? (navigator as BrowserFacts) : undefined);
  const user = session.user;
  const pageHref = src.pageHref ?? (typeof location === "object" ? location.href : "");
  const address = session.platformUrl || (src.pageOrigin ?? (typeof location === "object" ? location.origin : ""));
  const secureContext = src.secureContext ?? (typeof window === "object" ? window.isSecureContext : undefined);
  const app = src.app ?? APP;
  const bundle: DiagnosticsBundle = {
    format: "agentbar-diagnostics/1",
    createdAt: new Date(now()).toISOString(),
    app: { name: app.name, version: app.version, page: redactUrl(pageHref) },
    browser: {
      userAgent: nav?.userAgent ?? "",
      ...(nav?.userAgentData?.brands
        ? { brands: nav.userAgentData.brands.map(({ brand, version }) => ({ brand, version })) }
        : {}),
      ...(nav?.userAgentData?.platform ? { platform: nav.userAgentData.platform } : {}),
      languages: [...(nav?.languages ?? [])],
      ...(nav?.onLine !== undefined ? { online: nav.onLine } : {}),
      ...(secureContext !== undefined ? { secureContext } : {}),
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    },
    platform: {
      address: redactUrl(address),
      sipWebSocketUrl: redactUrl(
        src.phoneSession.store.getState().server || settings.sipWebSocketUrl || "(the platform's /ws)",
      ),
      eventChannelUrl: redactUrl(settings.eventChannelUrl || "(the platform's /ws)"),
    },
    account: user ? { login: user.login, extension: user.extension, domain: user.domain, role: user.role } : null,
    settings: {
      ...settings,
      platformUrl: redactUrl(settings.platformUrl),
      sipWebSocketUrl: redactUrl(settings.sipWebSocketUrl),
      eventChannelUrl: redactUrl(settings.eventChannelUrl),
      iceServers: settings.iceServers.map((s) => ({
        urls: redactUrl(s.urls),
        withCredential: !!s.credential || !!s.username,
      })),
    },
    phone: src.phoneSession.phone.diagnosticReport(),
  };
  // Belt and braces: the session's own tokens, wherever they might have slipped in.
  const credentials = session.client?.session;
  return scrubSecrets(bundle, [credentials?.token, credentials?.refreshToken]);
}

/** The bundle as a file: pretty JSON, named after the extension and the time. */
export function diagnosticsFile(bundle: DiagnosticsBundle): { name: string; type: "application/json"; text: string } {
  const stamp = bundle.createdAt
    .replace(/\.\d+Z$/, "Z")
    .replace(/[-:]/g, "")
    .replace("T", "-");
  const who = bundle.account?.extension || bundle.account?.login || "agentbar";
  return {
    name: `agentbar-diagnostics-${who.replace(/[^\w.-]/g, "_")}-${stamp}.json`,
    type: "application/json",
    text: JSON.stringify(bundle, null, 2),
  };
}
