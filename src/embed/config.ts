import { NO_HOSTS, parseEmbedConfig, type EmbedConfig } from "../../shared/embed-config";

let loaded: Promise<EmbedConfig> | undefined;

/**
 * The `embed` part of the deployment's config.json (who may embed the app, which headers are a
 * call's data), read once per page: by the embedding when the app is framed, and by every tab for
 * the call data, since the tab with the agent's phone may be another than the framed one.
 */
export function deploymentEmbedConfig(): Promise<EmbedConfig> {
  return (loaded ??= loadEmbedConfig(new URL("config.json", document.baseURI)));
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
