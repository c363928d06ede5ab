/**
 * The scopes of the embedding channel, shared by the app (src/embed), the CRM host SDK
 * (src/embed/host) and the local platform (which reads the same allowlist to set who may frame the
 * app): one list, so that none can accept a scope another does not know.
 */
export const SCOPES = ["dial", "call-control", "status", "caller-data", "diagnostics"] as const;
/**
 * What an allowed host origin may do:
 * - `dial`: place calls (`dial`);
 * - `call-control`: answer, reject, hang up, hold, resume, mute, keypad tones, transfer, outcome and notes;
 * - `status`: set the agent's status;
 * - `caller-data`: see who calls (numbers, names), the data that came with the call (an IVR's
 *   input) and the notes written after a call;
 * - `diagnostics`: see why the phone is not connected, and `getDiagnostics`; with `caller-data`
 *   too, `getDiagnosticsFile` (the file the agent downloads for support).
 * Every host sees the agent's status and that calls come and go, without who is calling.
 */
export type Scope = (typeof SCOPES)[number];
