import type { PhoneErrorInfo } from "./phone-error";

/**
 * Where the phone stands with the SIP server:
 * - `stopped`: not started (or stopped);
 * - `connecting`: opening the WebSocket (attempt 1 is the first connection);
 * - `registering`: connected, REGISTER sent;
 * - `registered`: the server accepted us; calls can arrive;
 * - `reconnecting`: something failed and the phone tries again at `nextAttemptAt` (ms since
 *   epoch); `error` says what failed;
 * - `failed`: something failed that waiting will not fix (refused credentials, unknown user,
 *   invalid settings); the phone waits for new credentials or a `retryNow()`.
 */
export type RegistrationState =
  | { status: "stopped" }
  | { status: "connecting"; attempt: number }
  | { status: "registering"; attempt: number }
  | { status: "registered"; registeredAt: number; expiresAt?: number }
  | { status: "reconnecting"; attempt: number; nextAttemptAt: number; error: PhoneErrorInfo }
  | { status: "failed"; error: PhoneErrorInfo };

export type TransportStatus = "disconnected" | "connecting" | "connected";
