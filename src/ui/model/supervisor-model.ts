import type { Supervision, Wallboard } from "../../cc/supervisor";
import { createSupervisorUi } from "./supervisor-ui";
import type { UiModel } from "./model";

/** The wallboard region's model: the signed-in screen's, with the supervisor's board and actions. */
export function withSupervisor(model: UiModel, deps: { wallboard: Wallboard; supervision: Supervision }): UiModel {
  const { session, settings, t, announce } = model;
  return { ...model, supervisor: createSupervisorUi({ ...deps, session, settings, t, announce }) };
}
