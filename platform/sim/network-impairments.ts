import { CLEAN_LEG, ImpairedLink, isClean, type ImpairedLinkStats, type LegImpairment } from "../media";

export interface ExtensionNetwork {
  extension: string;
  toPhone: LegImpairment["toPhone"];
  fromPhone: LegImpairment["fromPhone"];
  /** The extension's legs up now, with what their links did so far. */
  legs: ImpairedLinkStats[];
}

/**
 * The network between each extension's phone and the platform, as the simulator makes it: every
 * phone leg's media runs through an ImpairedLink, and what an extension's links do to packets is
 * set here (through /sim). A change applies at once to the calls up and to later ones, until it
 * is cleared: a bad network at an agent's desk, not a property of one call.
 */
export class NetworkImpairments {
  private readonly settings = new Map<string, LegImpairment>();
  private readonly links = new Map<string, Set<ImpairedLink>>();

  /** A new leg's link for this extension's phone. */
  linkFor(extension: string): ImpairedLink {
    const link: ImpairedLink = new ImpairedLink(() => this.settings.get(extension) ?? CLEAN_LEG, {
      onClose: () => {
        const set = this.links.get(extension);
        set?.delete(link);
        if (set?.size === 0) this.links.delete(extension);
      },
    });
    let set = this.links.get(extension);
    if (!set) this.links.set(extension, (set = new Set()));
    set.add(link);
    return link;
  }

  set(extension: string, impairment: LegImpairment): ExtensionNetwork {
    if (isClean(impairment.toPhone) && isClean(impairment.fromPhone)) this.settings.delete(extension);
    else this.settings.set(extension, { toPhone: { ...impairment.toPhone }, fromPhone: { ...impairment.fromPhone } });
    return this.of(extension);
  }

  clear(extension: string): ExtensionNetwork {
    this.settings.delete(extension);
    return this.of(extension);
  }

  of(extension: string): ExtensionNetwork {
    const impairment = this.settings.get(extension) ?? CLEAN_LEG;
    return {
      extension,
      toPhone: { ...impairment.toPhone },
      fromPhone: { ...impairment.fromPhone },
      legs: [...(this.links.get(extension) ?? [])].map((link) => link.stats()),
    };
  }

  /** Extensions whose network is impaired now. */
  impaired(): ExtensionNetwork[] {
    return [...this.settings.keys()].map((extension) => this.of(extension));
  }
}
