import type { PhoneStore } from "./phone-store";
import type { RegistrationState } from "./registration-state";

/** One change of the phone's registration, with when it happened. */
export type RegistrationEvent = { at: number } & RegistrationState;

export const REGISTRATION_EVENTS_KEPT = 100;

/** The registration's recent changes (connecting, registered, lost, refused...), for a diagnostics bundle. */
export class RegistrationHistory {
  private readonly events: RegistrationEvent[] = [];

  constructor(store: PhoneStore, now: () => number) {
    store.subscribe((state, previous) => {
      if (state.registration === previous.registration) return;
      this.events.push({ at: now(), ...state.registration });
      if (this.events.length > REGISTRATION_EVENTS_KEPT) this.events.shift();
    });
  }

  /** Oldest first. */
  list(): RegistrationEvent[] {
    return this.events.slice();
  }
}
