import type { AgentSession } from "../cc";
import type { PhoneSession, SessionStore, SettingsStore } from "../session";
import { version } from "../../package.json";
import { createBridge } from "./bridge";
import { NO_HOSTS, parseEmbedConfig, type EmbedConfig } from "../../shared/embed-config";
import { startEndpoint } from "./endpoint";
import type { DiagnosticsFile } from "./host/protocol";

export interface EmbeddingDeps {
  session: SessionStore;
  settings: SettingsStore;
  phoneSession: PhoneSession;
  agentSession: AgentSession;
}

/**
 * The in-app side of the CRM channel, started only when the app runs in a frame: reads which
 * host origins may talk to it from the deployment's `config.json`, then listens for their
 * handshakes. With no host allowed it does not even listen.
 */
export async function startEmbedding(deps: EmbeddingDeps): Promise<void> {
  const config = await loadEmbedConfig(new URL("config.json", document.baseURI));
  if (!config.hosts.length) return;
  const { session, settings, phoneSession } = deps;
  const diagnosticsFile = async (): Promise<DiagnosticsFile> => {
    const d = await import("../session/diagnostics-bundle");
    return d.diagnosticsFile(d.buildDiagnosticsBundle({ session, settings, phoneSession }));
  };
  const app = createBridge({ ...deps, storage: storageKind(), diagnosticsFile, appVersion: version });
  startEndpoint({ window, config, app, appVersion: version });
}

/** The `embed` part of config.json; a missing or broken file allows no host (and the console says why). */
export async function loadEmbedConfig(url: URL): Promise<EmbedConfig> {
  let json: unknown;
  try {
    const r = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
    if (r.status === 404) return NO_HOSTS;
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    json = await r.json();
  } catch (e) {
    console.error(`agentbar: could not read ${url.pathname}; no page may embed and drive the app`, e);
    return NO_HOSTS;
  }
  const parsed = parseEmbedConfig(json);
  if (parsed.ok) return parsed.config;
  console.error(`agentbar: ${parsed.problem}; no page may embed and drive the app`);
  return NO_HOSTS;
}

/** Whether the browser lets the framed app keep its storage (third-party storage may be blocked). */
function storageKind(): "browser" | "memory" {
  try {
    const probe = "agentbar.probe";
    localStorage.setItem(probe, "1");
    localStorage.removeItem(probe);
    return "browser";
  } catch {
    return "memory";
  }
}
