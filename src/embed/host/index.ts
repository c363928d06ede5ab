/**
 * The Agentbar host SDK: frames the app in a CRM page and talks to it over a private channel.
 * It imports nothing of the app; it is built alone, as an ES module (`agentbar-host.js`, with
 * type declarations) and as a script that defines the global `AgentbarHost`. See docs/embedding.md.
 */
export { embed, Agentbar, type EmbedOptions, type Layout } from "./embed";
export { AgentbarError, type HostEvents } from "./connection";
export { dialStringOf } from "./links";
export type { CommandArgs } from "./commands";
export {
  PROTOCOL_VERSIONS,
  SCOPES,
  type AgentInfo,
  type AgentStatus,
  type CallInfo,
  type CommandName,
  type CommandResult,
  type Diagnostics,
  type ErrorCode,
  type ErrorInfo,
  type EventData,
  type EventName,
  type HungUpBy,
  type RegistrationInfo,
  type Scope,
  type Snapshot,
  type StatusChoice,
  type UserInfo,
  type WrapUpInfo,
} from "./protocol";
