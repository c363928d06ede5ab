import { EventEmitter } from "node:events";
import type { Core } from "sip.js";
import type { ExtensionRow, UserStore } from "../store/users";
import { extensionKey, type HubConnection, type SipHub } from "./hub";
import type { Log } from "../log";
import type { SipAuthenticator } from "./sip-authenticator";

/** One registered contact of an extension: a phone (sip.js UA) reachable over a connection. */
export interface Binding {
  extension: string;
  domain: string;
  /** The Contact URI the phone registered, e.g. sip:k3j2h1@x7.invalid;transport=ws */
  contactUri: string;
  /** Its user part, which the platform's requests to the phone carry in the Request-URI. */
  contactUser: string;
  expiresAt: number;
  registeredAt: Date;
  connection: HubConnection;
  userAgent: string;
}

export interface RegistrarOptions {
  /** Shortest registration accepted (423 Interval Too Brief below it), seconds. */
  minExpires: number;
  /** Longest registration granted, seconds. */
  maxExpires: number;
  /** Granted when the phone asks for none. */
  defaultExpires: number;
}

export interface RegistrarEvents {
  /** The contacts of an extension changed (registered, refreshed, unregistered, expired, lost). */
  change: (extension: string, domain: string) => void;
}

type ContactHeader = { uri: Core.URI; getParam(name: string): string | undefined; toString(): string };

/**
 * The registrar: digest-authenticated REGISTER (username = extension number, password = the
 * extension's own password or any live extension token from POST /api/users/extn_token), several
 * contacts per extension, unregistering one or all (`Contact: *`), expiry, and bindings dropped
 * when the connection they came over closes. Every 200 lists all of the extension's contacts,
 * each with `;expires=` (sip.js needs that parameter, or it re-registers in a tight loop). A
 * Contact belongs to the extension that registered it (SipHub): registering another extension's
 * is refused with 403, and a digest answer is good only for the Contacts it was challenged for.
 */
export class Registrar {
  private readonly bindings = new Map<string, Map<string, Binding>>();
  private readonly timers = new Map<Binding, NodeJS.Timeout>();
  private readonly emitter = new EventEmitter();

  constructor(
    private readonly users: UserStore,
    private readonly authenticator: SipAuthenticator,
    private readonly hub: SipHub,
    private readonly log: Log,
    private readonly options: RegistrarOptions,
  ) {
    hub.on("closed", (conn) => this.dropConnection(conn));
  }

  on<E extends keyof RegistrarEvents>(event: E, listener: RegistrarEvents[E]): this {
    this.emitter.on(event, listener);
    return this;
  }

  off<E extends keyof RegistrarEvents>(event: E, listener: RegistrarEvents[E]): this {
    this.emitter.off(event, listener);
    return this;
  }

  /** The live contacts of an extension, oldest registration first. */
  contactsOf(extension: string, domain: string): Binding[] {
    const now = Date.now();
    return [...(this.bindings.get(extensionKey(extension, domain))?.values() ?? [])].filter(
      (b) => b.expiresAt > now && b.connection.open,
    );
  }

  allBindings(): Binding[] {
    return [...this.bindings.values()].flatMap((m) => [...m.values()]);
  }

  /** The extension row a request's identity names, in `domain` or the platform's default domain. */
  resolveDomain(host: string | undefined): string {
    return host && this.users.domainExists(host) ? host : this.users.defaultDomain();
  }

  /** Why an extension may not register or call now, or undefined when it may. */
  refusal(extension: ExtensionRow): string | undefined {
    if (extension.disabled) return "Extension Disabled";
    const owner = extension.user_id !== null ? this.users.byId(extension.user_id) : undefined;
    if (owner?.disabled) return "User Disabled";
    return undefined;
  }

  /** Handles a REGISTER that reached the platform's UserAgent. */
  handle(request: Core.IncomingRequest): void {
    const message = request.message;
    const domain = this.resolveDomain(message.to.uri.host);
    const toUser = message.to.uri.user ?? "";
    const conn = message.viaBranch ? this.hub.connectionOfBranch(message.viaBranch) : undefined;
    const contacts = contactsOf(message);
    // The answer registers what it was asked for: this AOR, these Contacts, in this registration.
    const binding = `REGISTER ${toUser}@${domain} ${message.callId} ${contacts === "*" ? "*" : contacts.map((c) => c.uri.toString()).join(" ")}`;
    this.authenticator.check({ message, extension: toUser, domain, conn, binding }, (verdict) => {
      if (!verdict.ok) request.reject(verdict);
      else if (!conn?.open) request.reject({ statusCode: 500, reasonPhrase: "Connection Lost" });
      else this.register(request, verdict.extension, domain, conn, contacts);
    });
  }

  private register(
    request: Core.IncomingRequest,
    extension: ExtensionRow,
    domain: string,
    conn: HubConnection,
    contacts: ContactHeader[] | "*",
  ): void {
    const message = request.message;
    const refusal = this.refusal(extension);
    if (refusal) {
      request.reject({ statusCode: 403, reasonPhrase: refusal });
      return;
    }
    const headerExpires = message.getHeader("expires");
    const defaultExpires =
      headerExpires !== undefined && /^\d+$/.test(headerExpires.trim())
        ? Number(headerExpires)
        : this.options.defaultExpires;
    const aorKey = extensionKey(extension.extn, domain);
    let table = this.bindings.get(aorKey);
    if (!table) this.bindings.set(aorKey, (table = new Map()));

    if (contacts === "*") {
      if (defaultExpires !== 0) {
        request.reject({ statusCode: 400, reasonPhrase: "Contact * Needs Expires: 0" });
        return;
      }
      for (const b of [...table.values()]) this.remove(b);
      request.accept({ statusCode: 200 });
      this.emitter.emit("change", extension.extn, domain);
      return;
    }

    const taken = contacts.find(
      (c) => c.uri.user && ![undefined, aorKey].includes(this.hub.ownerOfContact(c.uri.user)),
    );
    if (taken) {
      this.log.info(
        `REGISTER of ${aorKey} refused: Contact ${taken.uri.user} belongs to ${this.hub.ownerOfContact(taken.uri.user!)}`,
      );
      request.reject({ statusCode: 403, reasonPhrase: "Contact Belongs To Another Extension" });
      return;
    }
    for (const c of contacts) {
      const asked = c.getParam("expires");
      const expires = asked !== undefined && /^\d+$/.test(asked) ? Number(asked) : defaultExpires;
      if (expires > 0 && expires < this.options.minExpires) {
        request.reject({ statusCode: 423, extraHeaders: [`Min-Expires: ${this.options.minExpires}`] });
        return;
      }
    }
    const now = Date.now();
    for (const c of contacts) {
      const contactUser = c.uri.user;
      if (!contactUser) continue;
      const asked = c.getParam("expires");
      const expires = Math.min(
        asked !== undefined && /^\d+$/.test(asked) ? Number(asked) : defaultExpires,
        this.options.maxExpires,
      );
      const existing = table.get(contactUser);
      if (expires === 0) {
        if (existing) this.remove(existing);
        this.hub.unbindContact(contactUser, conn);
        continue;
      }
      const binding: Binding = {
        extension: extension.extn,
        domain,
        contactUri: c.uri.toString(),
        contactUser,
        expiresAt: now + expires * 1000,
        registeredAt: existing?.registeredAt ?? new Date(now),
        connection: conn,
        userAgent: message.getHeader("user-agent") ?? "",
      };
      if (existing) this.clearTimer(existing);
      table.set(contactUser, binding);
      this.timers.set(binding, setTimeout(() => this.expire(binding), expires * 1000 + 50).unref());
      this.hub.bindContact(contactUser, aorKey, conn);
    }
    const lines = [...table.values()].map(
      (b) => `Contact: <${b.contactUri}>;expires=${Math.max(0, Math.round((b.expiresAt - now) / 1000))}`,
    );
    request.accept({ statusCode: 200, extraHeaders: lines });
    this.emitter.emit("change", extension.extn, domain);
  }

  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.bindings.clear();
  }

  private expire(binding: Binding): void {
    if (this.remove(binding)) this.emitter.emit("change", binding.extension, binding.domain);
  }

  private remove(binding: Binding): boolean {
    this.clearTimer(binding);
    const table = this.bindings.get(extensionKey(binding.extension, binding.domain));
    if (table?.get(binding.contactUser) !== binding) return false;
    table.delete(binding.contactUser);
    if (table.size === 0) this.bindings.delete(extensionKey(binding.extension, binding.domain));
    return true;
  }

  private clearTimer(binding: Binding): void {
    const timer = this.timers.get(binding);
    if (timer) clearTimeout(timer);
    this.timers.delete(binding);
  }

  private dropConnection(conn: HubConnection): void {
    const changed = new Set<string>();
    for (const table of this.bindings.values()) {
      for (const b of [...table.values()]) {
        if (b.connection === conn && this.remove(b)) changed.add(extensionKey(b.extension, b.domain));
      }
    }
    for (const k of changed) {
      const [extension, domain] = k.split("@") as [string, string];
      this.emitter.emit("change", extension, domain);
    }
  }
}

/** The Contacts of a REGISTER (`*`: all of the extension's). */
function contactsOf(message: Core.IncomingRequestMessage): ContactHeader[] | "*" {
  const raw = message.getHeaders("contact");
  if (raw.length === 1 && raw[0]!.trim() === "*") return "*";
  const contacts: ContactHeader[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = message.parseHeader("contact", i) as ContactHeader | undefined;
    if (c?.uri) contacts.push(c);
  }
  return contacts;
}
