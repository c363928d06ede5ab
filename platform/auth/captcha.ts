import { randomInt } from "node:crypto";
import { systemClock, type Clock } from "../clock";

interface Captcha {
  id: number;
  login: string;
  text: string;
  expiresAt: number;
}

export const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // no 0/O, 1/I look-alikes
const LIFETIME_MS = 5 * 60_000;
/** Captchas kept per login, the newest: asking for more drops the oldest. */
export const PENDING_PER_LOGIN = 5;
/** Captchas kept in all; a flood of requests for made-up logins drops the oldest. */
const PENDING_IN_ALL = 10_000;

/**
 * Captchas for logins after repeated failures. A captcha is made for a login name
 * (GET /api/captchas?login=); a POST /api/sessions of that login must carry the text of one of
 * its pending captchas as `captcha_str`. Anyone may ask for a captcha, so asking does not void
 * the ones already given out: each login keeps its newest few, any of which is accepted once,
 * within its lifetime.
 */
export class CaptchaService {
  private nextId = 1;
  /** Oldest first (ids grow). */
  private readonly byId = new Map<number, Captcha>();
  private readonly byLogin = new Map<string, Captcha[]>();

  constructor(private readonly now: Clock = systemClock) {}

  create(login: string): Captcha {
    this.sweep();
    const text = Array.from({ length: 5 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
    const captcha = { id: this.nextId++, login, text, expiresAt: this.now() + LIFETIME_MS };
    const pending = this.byLogin.get(login) ?? [];
    this.byLogin.set(login, pending);
    pending.push(captcha);
    this.byId.set(captcha.id, captcha);
    if (pending.length > PENDING_PER_LOGIN) this.remove(pending[0]!);
    if (this.byId.size > PENDING_IN_ALL) this.remove(this.byId.values().next().value!);
    return captcha;
  }

  /**
   * True when `text` answers one of the login's pending captchas, which is then used up. A wrong
   * answer uses up none: anyone may send one, and the user's own picture must stay good.
   */
  check(login: string, text: string): boolean {
    const answer = text.trim().toUpperCase();
    const match = this.byLogin.get(login)?.find((c) => c.text === answer && c.expiresAt > this.now());
    if (!match) return false;
    this.remove(match);
    return true;
  }

  /**
   * The characters of a pending captcha, for tests running the platform in their own process
   * (a person reads them from the picture). No route serves them.
   */
  answerOf(id: number): string | undefined {
    return this.byId.get(id)?.text;
  }

  /** The captcha picture (SVG); see drawCaptcha. */
  picture(id: number): string | undefined {
    const captcha = this.byId.get(id);
    if (!captcha || captcha.expiresAt <= this.now()) return undefined;
    return drawCaptcha(captcha.text);
  }

  private remove(captcha: Captcha) {
    this.byId.delete(captcha.id);
    const pending = this.byLogin.get(captcha.login);
    const left = pending?.filter((c) => c !== captcha) ?? [];
    if (left.length) this.byLogin.set(captcha.login, left);
    else this.byLogin.delete(captcha.login);
  }

  private sweep() {
    const now = this.now();
    for (const c of this.byId.values()) if (c.expiresAt <= now) this.remove(c);
  }
}

type Stroke = [number, number][];

/**
 * A small stroke font: each character as polylines on a grid 4 wide and 6 high (y down). The
 * picture draws these, never the characters as text, so its source does not spell the answer.
 */
const GLYPHS: Record<string, Stroke[]> = {
  A: [
    [
      [0, 6],
      [2, 0],
      [4, 6],
    ],
    [
      [0.8, 3.6],
      [3.2, 3.6],
    ],
  ],
  B: [
    [
      [0, 0],
      [0, 6],
      [3, 6],
      [4, 5],
      [4, 4],
      [3, 3],
      [0, 3],
    ],
    [
      [0, 0],
      [3, 0],
      [4, 1],
      [4, 2],
      [3, 3],
    ],
  ],
  C: [
    [
      [4, 1],
      [3, 0],
      [1, 0],
      [0, 1],
      [0, 5],
      [1, 6],
      [3, 6],
      [4, 5],
    ],
  ],
  D: [
    [
      [0, 0],
      [0, 6],
      [2.5, 6],
      [4, 4.5],
      [4, 1.5],
      [2.5, 0],
      [0, 0],
    ],
  ],
  E: [
    [
      [4, 0],
      [0, 0],
      [0, 6],
      [4, 6],
    ],
    [
      [0, 3],
      [3, 3],
    ],
  ],
  F: [
    [
      [4, 0],
      [0, 0],
      [0, 6],
    ],
    [
      [0, 3],
      [3, 3],
    ],
  ],
  G: [
    [
      [4, 1],
      [3, 0],
      [1, 0],
      [0, 1],
      [0, 5],
      [1, 6],
      [3, 6],
      [4, 5],
      [4, 3.5],
      [2.5, 3.5],
    ],
  ],
  H: [
    [
      [0, 0],
      [0, 6],
    ],
    [
      [4, 0],
      [4, 6],
    ],
    [
      [0, 3],
      [4, 3],
    ],
  ],
  J: [
    [
      [1, 0],
      [4, 0],
    ],
    [
      [3, 0],
      [3, 5],
      [2, 6],
      [1, 6],
      [0, 5],
    ],
  ],
  K: [
    [
      [0, 0],
      [0, 6],
    ],
    [
      [4, 0],
      [0, 3.5],
    ],
    [
      [1.2, 2.8],
      [4, 6],
    ],
  ],
  L: [
    [
      [0, 0],
      [0, 6],
      [4, 6],
    ],
  ],
  M: [
    [
      [0, 6],
      [0, 0],
      [2, 3],
      [4, 0],
      [4, 6],
    ],
  ],
  N: [
    [
      [0, 6],
      [0, 0],
      [4, 6],
      [4, 0],
    ],
  ],
  P: [
    [
      [0, 6],
      [0, 0],
      [3, 0],
      [4, 1],
      [4, 2],
      [3, 3],
      [0, 3],
    ],
  ],
  Q: [
    [
      [1, 0],
      [3, 0],
      [4, 1],
      [4, 5],
      [3, 6],
      [1, 6],
      [0, 5],
      [0, 1],
      [1, 0],
    ],
    [
      [2.5, 4.5],
      [4.2, 6.2],
    ],
  ],
  R: [
    [
      [0, 6],
      [0, 0],
      [3, 0],
      [4, 1],
      [4, 2],
      [3, 3],
      [0, 3],
    ],
    [
      [2, 3],
      [4, 6],
    ],
  ],
  S: [
    [
      [4, 1],
      [3, 0],
      [1, 0],
      [0, 1],
      [0, 2],
      [1, 3],
      [3, 3],
      [4, 4],
      [4, 5],
      [3, 6],
      [1, 6],
      [0, 5],
    ],
  ],
  T: [
    [
      [0, 0],
      [4, 0],
    ],
    [
      [2, 0],
      [2, 6],
    ],
  ],
  U: [
    [
      [0, 0],
      [0, 5],
      [1, 6],
      [3, 6],
      [4, 5],
      [4, 0],
    ],
  ],
  V: [
    [
      [0, 0],
      [2, 6],
      [4, 0],
    ],
  ],
  W: [
    [
      [0, 0],
      [1, 6],
      [2, 3],
      [3, 6],
      [4, 0],
    ],
  ],
  X: [
    [
      [0, 0],
      [4, 6],
    ],
    [
      [4, 0],
      [0, 6],
    ],
  ],
  Y: [
    [
      [0, 0],
      [2, 3],
      [4, 0],
    ],
    [
      [2, 3],
      [2, 6],
    ],
  ],
  Z: [
    [
      [0, 0],
      [4, 0],
      [0, 6],
      [4, 6],
    ],
  ],
  "2": [
    [
      [0, 1],
      [1, 0],
      [3, 0],
      [4, 1],
      [4, 2],
      [0, 6],
      [4, 6],
    ],
  ],
  "3": [
    [
      [0, 1],
      [1, 0],
      [3, 0],
      [4, 1],
      [4, 2],
      [3, 3],
      [1.5, 3],
    ],
    [
      [3, 3],
      [4, 4],
      [4, 5],
      [3, 6],
      [1, 6],
      [0, 5],
    ],
  ],
  "4": [
    [
      [3, 6],
      [3, 0],
      [0, 4],
      [4, 4],
    ],
  ],
  "5": [
    [
      [4, 0],
      [0, 0],
      [0, 3],
      [3, 3],
      [4, 4],
      [4, 5],
      [3, 6],
      [1, 6],
      [0, 5],
    ],
  ],
  "6": [
    [
      [3.5, 0],
      [1, 0],
      [0, 1],
      [0, 5],
      [1, 6],
      [3, 6],
      [4, 5],
      [4, 4],
      [3, 3],
      [0, 3],
    ],
  ],
  "7": [
    [
      [0, 0],
      [4, 0],
      [1.5, 6],
    ],
  ],
  "8": [
    [
      [1, 3],
      [0, 2],
      [0, 1],
      [1, 0],
      [3, 0],
      [4, 1],
      [4, 2],
      [3, 3],
      [1, 3],
      [0, 4],
      [0, 5],
      [1, 6],
      [3, 6],
      [4, 5],
      [4, 4],
      [3, 3],
    ],
  ],
  "9": [
    [
      [4, 3],
      [1, 3],
      [0, 2],
      [0, 1],
      [1, 0],
      [3, 0],
      [4, 1],
      [4, 5],
      [3, 6],
      [0.5, 6],
    ],
  ],
};

const WIDTH = 150;
const HEIGHT = 50;

/**
 * Draws the characters as strokes of GLYPHS, each scaled, turned and placed a little differently,
 * every point shaken, over and under noise strokes drawn the same way; the strokes are written in
 * random order with absolute coordinates, so neither the elements nor their order tell which
 * character is where.
 */
export function drawCaptcha(text: string): string {
  const strokes: string[] = [];
  [...text].forEach((ch, i) => {
    const scale = 3.8 + Math.random();
    const angle = (Math.random() - 0.5) * 0.5;
    const cx = 22 + i * 26 + shake(2);
    const cy = HEIGHT / 2 + shake(3);
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const glyph = GLYPHS[ch];
    if (!glyph) throw new Error(`the captcha font has no '${ch}'`);
    for (const stroke of glyph) {
      const points = stroke.map(([gx, gy]): [number, number] => {
        const x = (gx - 2) * scale + shake(0.7);
        const y = (gy - 3) * scale + shake(0.7);
        return [cx + x * cos - y * sin, cy + x * sin + y * cos];
      });
      strokes.push(path(points, 2.2 + Math.random() * 0.8));
    }
  });
  for (let n = 0; n < 5; n++) {
    const points = Array.from({ length: 2 + randomInt(2) }, (): [number, number] => [
      Math.random() * WIDTH,
      Math.random() * HEIGHT,
    ]);
    strokes.push(path(points, 1.2 + Math.random()));
  }
  for (let i = strokes.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [strokes[i], strokes[j]] = [strokes[j]!, strokes[i]!];
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">` +
    `<rect width="100%" height="100%" fill="#f4f4f0"/>${strokes.join("")}</svg>`
  );
}

function path(points: [number, number][], width: number): string {
  const d = points.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`).join("");
  return `<path d="${d}" fill="none" stroke="#${shade()}" stroke-width="${width.toFixed(1)}" stroke-linecap="round" stroke-linejoin="round"/>`;
}

function shake(amount: number): number {
  return (Math.random() - 0.5) * 2 * amount;
}

function shade(): string {
  return [0, 0, 0].map(() => randomInt(40, 140).toString(16).padStart(2, "0")).join("");
}
