import { useModel } from "../model";
import type { AgentUi } from "./agent-ui";

/** The agent part of the model; toolbar components are only placed when the app has it. */
export function useAgent(): AgentUi {
  const agent = useModel().agent;
  if (!agent) throw new Error("toolbar component without an agent session in the model");
  return agent;
}
