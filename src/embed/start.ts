import type { AgentSession } from "../cc";
import type { PhoneSession, SessionStore, SettingsStore } from "../session";
import { version } from "../../package.json";
import { createBridge } from "./bridge";
import { deploymentEmbedConfig } from "./config";
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
  const config = await deploymentEmbedConfig();
  if (!config.hosts.length) return;
  const { session, settings, phoneSession } = deps;
  const diagnosticsFile = async (): Promise<DiagnosticsFile> => {
    const d = await import("../session/diagnostics-bundle");
    return d.diagnosticsFile(d.buildDiagnosticsBundle({ session, settings, phoneSession }));
  };
  const app = createBridge({ ...deps, storage: storageKind(), diagnosticsFile, appVersion: version });
  startEndpoint({ window, config, app, appVersion: version });
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
