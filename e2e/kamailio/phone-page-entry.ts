// What the bare phone page offers a test: the app's phone, and a DTMF receiver that listens to
// what the page hears (the keypad tones a browser plays out for received RFC 4733 events).
export * as Softphone from "../../src/softphone";
export { DtmfDetector } from "../../platform/media/dtmf-detector";
