import { describe, expect, it } from "vitest";
import { checkPlatformAddress } from "./platform-address";

describe("platform address", () => {
  it.each([
    ["", ""],
    ["  ", ""],
    ["https://pbx.example.com", "https://pbx.example.com"],
    ["https://pbx.example.com/", "https://pbx.example.com"],
    ["pbx.example.com", "https://pbx.example.com"],
    ["http://localhost:8080", "http://localhost:8080"],
    ["localhost:8080", "https://localhost:8080"],
    ["http://10.1.2.3:8080/api/", "http://10.1.2.3:8080"],
    ["https://example.com/pbx/", "https://example.com/pbx"],
    ["HTTPS://PBX.Example.com", "https://pbx.example.com"],
  ])("accepts %j as %j", (typed, url) => {
    expect(checkPlatformAddress(typed)).toEqual({ ok: true, url });
  });

  it.each([
    "pbx example.com",
    "ftp://pbx.example.com",
    "https://",
    "https://pbx",
    "https://user:pw@pbx.example.com",
    "https://pbx.example.com/?x=1",
    "http//pbx.example.com",
    "::::",
  ])("refuses %j", (typed) => {
    expect(checkPlatformAddress(typed)).toEqual({ ok: false });
  });
});
