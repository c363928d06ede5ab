import { EventEmitter } from "node:events";
import type { Channel, Switch } from "../switch/types";

/**
 * Stands in for the soft-switch while none runs (a platform started without one): it carries no
 * calls. The call center still signs agents in and out and changes their status; functions that
 * need a call answer 503.
 */
export class NoSwitch extends EventEmitter implements Switch {
  originate(): Channel {
    throw new Error("the soft-switch is not running");
  }
  bridge(): void {}
  unbridge(): undefined {
    return undefined;
  }
  partnerOf(): undefined {
    return undefined;
  }
  async hold(): Promise<void> {}
  async unhold(): Promise<void> {}
  playMusic(): void {}
  playTone(): void {}
  eavesdrop(): void {}
  transfer(): void {}
  addRoute(): void {}
  channel(): undefined {
    return undefined;
  }
  channels(): Channel[] {
    return [];
  }
  record(): void {}
}
