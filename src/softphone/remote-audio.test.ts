import { describe, expect, it } from "vitest";
import { RemoteAudio } from "./remote-audio";
import { FakeAudioElement, FakeStream, FakeTrack } from "./testing/mock-media";

describe("RemoteAudio", () => {
  function setup() {
    const elements: FakeAudioElement[] = [];
    const errors: unknown[] = [];
    const audio = new RemoteAudio(
      () => {
        const e = new FakeAudioElement();
        elements.push(e);
        return e;
      },
      (_id, e) => errors.push(e),
    );
    return { audio, elements, errors };
  }
  const stream = () => new FakeStream() as FakeStream & MediaStream;

  it("keeps one element per call and plays again when the stream gains a track", async () => {
    const { audio, elements } = setup();
    const s = stream();
    audio.attach("c1", s);
    audio.attach("c1", s);
    expect(elements).toHaveLength(1);
    expect(elements[0]).toMatchObject({ srcObject: s, autoplay: true });
    const plays = elements[0]!.plays;
    s.addTrack(new FakeTrack());
    s.dispatch("addtrack");
    expect(elements[0]!.plays).toBe(plays + 1);
  });

  it("follows a replaced stream and forgets the old one", () => {
    const { audio, elements } = setup();
    const first = stream();
    const second = stream();
    audio.attach("c1", first);
    audio.attach("c1", second);
    expect(elements[0]!.srcObject).toBe(second);
    expect(first.listenerCount).toBe(0);
  });

  it("routes every call, present and future, to the chosen output", async () => {
    const { audio, elements } = setup();
    audio.attach("c1", stream());
    audio.setSink("headset");
    audio.attach("c2", stream());
    await Promise.resolve();
    expect(elements.map((e) => e.sinkId)).toEqual(["headset", "headset"]);
  });

  it("lets go of the element and the stream when the call ends", () => {
    const { audio, elements } = setup();
    const s = stream();
    audio.attach("c1", s);
    audio.detach("c1");
    expect(elements[0]).toMatchObject({ srcObject: null, paused: true });
    expect(s.listenerCount).toBe(0);
    expect(audio.size).toBe(0);
  });

  it("reports playback refused by the autoplay policy", async () => {
    const errors: unknown[] = [];
    const audio = new RemoteAudio(
      () => Object.assign(new FakeAudioElement(), { play: () => Promise.reject(new Error("NotAllowedError")) }),
      (_id, e) => errors.push(e),
    );
    audio.attach("c1", stream());
    await Promise.resolve();
    await Promise.resolve();
    expect(errors).toHaveLength(1);
  });

  it("plays ahead of the answer without reporting a refusal, and reports it once the call is answered", async () => {
    const errors: unknown[] = [];
    const elements: FakeAudioElement[] = [];
    const audio = new RemoteAudio(
      () => {
        const e = Object.assign(new FakeAudioElement(), {
          play: () => ((e.plays += 1), Promise.reject(new Error("NotAllowedError"))),
        });
        elements.push(e);
        return e;
      },
      (_id, e) => errors.push(e),
    );
    const s = stream();
    audio.attach("c1", s, true);
    await new Promise((r) => setTimeout(r));
    expect(elements[0]).toMatchObject({ srcObject: s, autoplay: true, plays: 1 });
    expect(errors).toEqual([]);
    audio.attach("c1", s);
    await new Promise((r) => setTimeout(r));
    expect(elements).toHaveLength(1);
    expect(elements[0]!.plays).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
