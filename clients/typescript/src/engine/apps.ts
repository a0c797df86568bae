// `apps` in the manifest: the apps whose links these are, checked as the server checks
// them (the same codes, pointers and messages). Clients resolve without them.

import { isObject, JSONValue, kindOf } from "./json.js";
import { get, ManifestReader } from "./manifest-reader.js";

/** A team ID of 10 uppercase letters and digits, a dot, and a bundle ID of letters, digits, hyphens and dots. */
export function isAppleAppID(text: string): boolean {
  return /^[A-Z0-9]{10}\.[A-Za-z0-9-][A-Za-z0-9.-]*$/.test(text) && !text.endsWith(".");
}

/** 32 pairs of uppercase hex digits joined by colons. */
export function isFingerprint(text: string): boolean {
  return /^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/.test(text);
}

/** Two or more segments joined by dots, each a letter then letters, digits or underscores. */
export function isPackageName(text: string): boolean {
  const segments = text.split(".");
  return segments.length >= 2 && segments.every((segment) => /^[A-Za-z][A-Za-z0-9_]*$/.test(segment));
}

/** Checks `apps` (at "/apps"); reports every problem to `reader`. */
export function checkApps(reader: ManifestReader, value: JSONValue | undefined): void {
  if (value === undefined) return;
  if (!isObject(value)) {
    reader.error("type-mismatch", "/apps", `"apps" must be an object with "apple" and "android", not ${kindOf(value)}`);
    return;
  }
  reader.checkKeys(value, "/apps", ["apple", "android"]);
  const apple = get(value, "apple");
  if (apple !== undefined) {
    if (isObject(apple)) {
      reader.checkKeys(apple, "/apps/apple", ["appIDs"]);
      const ids = get(apple, "appIDs");
      reader.stringList(ids, "/apps/apple/appIDs");
      if (ids === undefined) reader.error("missing-field", "/apps/apple/appIDs", "\"appIDs\" is required: the Apple app IDs, such as \"ABCDE12345.net.artsy.artsy\"");
      if (Array.isArray(ids)) {
        ids.forEach((id, i) => {
          if (typeof id === "string" && !isAppleAppID(id)) {
            reader.error("invalid-app", `/apps/apple/appIDs/${i}`, `"${id}" is not an Apple app ID: a team ID of 10 uppercase letters and digits, a dot, and a bundle ID`);
          }
        });
      }
    } else {
      reader.error("type-mismatch", "/apps/apple", `"apple" must be an object with "appIDs", not ${kindOf(apple)}`);
    }
  }
  const android = get(value, "android");
  if (android === undefined) return;
  if (!Array.isArray(android)) {
    reader.error("type-mismatch", "/apps/android", `"android" must be an array of apps, not ${kindOf(android)}`);
    return;
  }
  android.forEach((item, i) => {
    const pointer = `/apps/android/${i}`;
    if (!isObject(item)) {
      reader.error("type-mismatch", pointer, `an Android app must be an object with "package" and "sha256CertFingerprints", not ${kindOf(item)}`);
      return;
    }
    reader.checkKeys(item, pointer, ["package", "sha256CertFingerprints"]);
    const pkg = get(item, "package");
    if (typeof pkg !== "string") {
      reader.error("missing-field", `${pointer}/package`, "\"package\" is required: the app's Java package name, such as \"net.artsy.app\"");
    } else if (!isPackageName(pkg)) {
      reader.error("invalid-app", `${pointer}/package`, `"${pkg}" is not a Java package name (segments of a letter, then letters, digits or '_', joined by dots)`);
    }
    const fingerprints = get(item, "sha256CertFingerprints");
    reader.stringList(fingerprints, `${pointer}/sha256CertFingerprints`);
    if (fingerprints === undefined || (Array.isArray(fingerprints) && fingerprints.length === 0)) {
      reader.error("missing-field", `${pointer}/sha256CertFingerprints`, "\"sha256CertFingerprints\" must list at least one SHA-256 certificate fingerprint");
    }
    if (Array.isArray(fingerprints)) {
      fingerprints.forEach((fingerprint, j) => {
        if (typeof fingerprint === "string" && !isFingerprint(fingerprint)) {
          reader.error("invalid-app", `${pointer}/sha256CertFingerprints/${j}`, `"${fingerprint}" is not a SHA-256 certificate fingerprint: 32 pairs of uppercase hex digits joined by colons`);
        }
      });
    }
  });
}
