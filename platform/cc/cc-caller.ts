import { authorityOf } from "../auth/sessions";
import type { UserRow } from "../store/users";
import type { CallCenterDirectory } from "./directory";

/** Who asks the call center for something, through REST or the JSON-RPC channel. */
export interface CcCaller {
  userId: number;
  login: string;
  role: "admin" | "supervisor" | "agent" | "user";
  /** The caller's own agent number (its extension number); '' for a user without one. */
  agentNumber: string;
  /** Extensions the caller may ring and act on: its own, or just the one of an extension token. */
  extensions: string[];
}

export function ccCaller(user: UserRow, directory: CallCenterDirectory, extensionId?: number): CcCaller {
  const own = directory.extensionsOf(user.id);
  const extensions = extensionId !== undefined ? own.filter((e) => e.id === extensionId) : own;
  const role = authorityOf(user) as CcCaller["role"];
  return {
    userId: user.id,
    login: user.login,
    role,
    agentNumber: user.extn,
    extensions: extensions.map((e) => e.extn),
  };
}

/** Supervisors and administrators may act on every agent and watch every call. */
export const isSupervisor = (c: CcCaller) => c.role === "admin" || c.role === "supervisor";

/** An agent acts on itself; a supervisor or administrator on anyone. */
export const mayActOn = (c: CcCaller, agentNumber: string) =>
  isSupervisor(c) || (agentNumber !== "" && (c.agentNumber === agentNumber || c.extensions.includes(agentNumber)));
