// A route decoded as the server decodes it: its patterns, params and their types,
// presentation, variants, versions, injected params and redirect, every problem collected
// with its JSON pointer.

import { isObject, JSONValue, kindOf, show, sortingKeys, sortedKeys } from "./json.js";
import { PatternError, ParamType, RoutePattern, accepts, intValue, maxSafeInteger, STRING } from "./pattern.js";
import { RegexError, SafeRegex } from "./regex.js";
import { listedHostKey } from "./host.js";
import { SemanticVersion, VersionRange } from "./version.js";
import { Injected, ParamDeclaration, Presentation, Route, STYLES, Style, Variant } from "./manifest.js";
import { IDIOMS, ManifestReader, PLATFORMS, get, has, pointerToken } from "./manifest-reader.js";

export class RouteDecoder extends ManifestReader {
  decodePresentation(value: JSONValue, pointer: string): Presentation | null {
    const styleList = STYLES.join(", ");
    if (typeof value === "string") {
      if (!STYLES.includes(value as Style)) {
        this.error("unknown-style", pointer, `unknown presentation style "${value}"; use one of ${styleList}`);
        return null;
      }
      if (value === "tab") this.error("missing-tab", pointer, "style \"tab\" needs the tab to switch to: {\"style\": \"tab\", \"tab\": \"home\"}");
      return { style: value as Style, options: [] };
    }
    if (isObject(value)) {
      const style = get(value, "style");
      if (style === undefined) {
        this.error("missing-field", pointer + "/style", "a presentation object needs \"style\"");
        return null;
      }
      if (typeof style !== "string" || !STYLES.includes(style as Style)) {
        this.error("unknown-style", pointer + "/style", `unknown presentation style ${show(style)}; use one of ${styleList}`);
        return null;
      }
      if (style === "tab") {
        const tab = get(value, "tab");
        if (tab === undefined) this.error("missing-tab", pointer, "style \"tab\" needs \"tab\": the tab to switch to");
        else if (typeof tab !== "string" || tab.length === 0) this.error("invalid-value", pointer + "/tab", "\"tab\" must be a non-empty string");
      }
      const options: [string, JSONValue][] = sortedKeys(value).filter((k) => k !== "style").map((k) => [k, sortingKeys(value[k])]);
      return { style: style as Style, options };
    }
    this.error("type-mismatch", pointer, `a presentation is a style name or an object with "style", not ${kindOf(value)}`);
    return null;
  }

  protected pattern(value: JSONValue, pointer: string): RoutePattern | null {
    if (typeof value !== "string") {
      this.error("type-mismatch", pointer, `a pattern is a string such as "/artwork/:id", not ${kindOf(value)}`);
      return null;
    }
    try {
      const parsed = RoutePattern.parse(value);
      if (value.length > 1 && value.endsWith("/")) {
        this.warning("trailing-slash", pointer, `"${value}": the trailing slash is ignored (URLs lose theirs too); write "${value.slice(0, -1)}"`);
      }
      return parsed;
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      this.error(e.code, pointer, `"${value}": ${e.message}`);
      return null;
    }
  }

  protected version(value: JSONValue | undefined, pointer: string): SemanticVersion | null {
    if (value === undefined) return null;
    const v = typeof value === "string" ? SemanticVersion.parse(value) : null;
    if (v === null) this.error("invalid-version", pointer, `expected a semantic version such as "7.2.0", not ${show(value)}`);
    return v;
  }

  protected decodeRoute(value: JSONValue, index: number, pointer: string): Route | null {
    if (!isObject(value)) {
      this.error("type-mismatch", pointer, `a route must be an object, not ${kindOf(value)}`);
      return null;
    }
    this.checkKeys(value, pointer, ["name", "pattern", "patterns", "hosts", "destination", "presentation", "params", "inject",
      "variants", "since", "until", "priority", "universalLink", "redirect", "description"]);
    const field = (key: string) => get(value, key);
    const name = this.string(field("name"), pointer + "/name");
    if (field("name") === undefined) this.error("missing-field", pointer + "/name", "every route needs a unique \"name\"");

    const patterns: RoutePattern[] = [];
    const single = field("pattern"), list = field("patterns");
    const asList = list !== undefined;
    if (single === undefined && list === undefined) {
      this.error("missing-field", pointer + "/pattern", "a route needs \"pattern\" (or \"patterns\" for aliases)");
    } else if (single !== undefined && list !== undefined) {
      this.error("conflicting-fields", pointer + "/patterns", "give \"pattern\" or \"patterns\", not both");
    } else if (single !== undefined) {
      const p = this.pattern(single, pointer + "/pattern");
      if (p) patterns.push(p);
    } else if (!Array.isArray(list) || list.length === 0) {
      this.error("type-mismatch", pointer + "/patterns", "\"patterns\" must be a non-empty array of patterns");
    } else {
      list.forEach((item, i) => {
        const p = this.pattern(item, `${pointer}/patterns/${i}`);
        if (p) patterns.push(p);
      });
    }

    let hosts: string[] | null = null;
    const hostsWritten = this.stringList(field("hosts"), pointer + "/hosts");
    if (hostsWritten !== null) {
      if (hostsWritten.length === 0) this.error("invalid-value", pointer + "/hosts", "\"hosts\" must not be empty; leave it out to apply to every host");
      const keys: string[] = [];
      hostsWritten.forEach((host, i) => {
        const key = listedHostKey(host).key;
        if (key === undefined || !this.hostKeys.includes(key)) {
          this.error("unknown-host", `${pointer}/hosts/${i}`, `"${host}" is not listed in the top-level "hosts"`);
        } else if (!keys.includes(key)) keys.push(key);
      });
      hosts = keys;
    }

    const redirectValue = field("redirect");
    const redirect = redirectValue === undefined ? null : this.pattern(redirectValue, pointer + "/redirect");
    const destination = this.string(field("destination"), pointer + "/destination");
    if (redirectValue !== undefined) {
      for (const key of ["destination", "presentation", "variants", "inject"]) {
        if (field(key) !== undefined) this.error("redirect-conflict", `${pointer}/${key}`, `a redirect route has no "${key}": the route it leads to decides`);
      }
    } else if (field("destination") === undefined) {
      this.error("missing-field", pointer + "/destination", "a route needs \"destination\" (the screen to open) or \"redirect\"");
    }
    const p = field("presentation");
    const presentation = (p === undefined ? null : this.decodePresentation(p, pointer + "/presentation")) ?? { style: "push" as Style, options: [] };

    const pathParams = patterns.flatMap((x) => x.paramNames);
    let params: ParamDeclaration[] = [];
    const declared = field("params");
    if (declared !== undefined) {
      let boundEverywhere = patterns.length > 0 ? [...patterns[0].requiredParamNames] : [];
      for (const other of patterns.slice(1)) boundEverywhere = boundEverywhere.filter((n) => other.requiredParamNames.includes(n));
      params = this.decodeParams(declared, pointer + "/params", boundEverywhere);
    }
    const known = [...pathParams, ...params.map((d) => d.name)];
    const inject = this.decodeInject(field("inject"), pointer + "/inject", known);
    const variants = this.decodeVariants(field("variants"), pointer + "/variants");
    const since = this.version(field("since"), pointer + "/since");
    const until = this.version(field("until"), pointer + "/until");
    if (since && until && since.compare(until) >= 0) {
      this.error("empty-range", pointer + "/until", `until ${until} is not after since ${since}: the route would exist for no version`);
    }
    let priority = 0;
    const pr = field("priority");
    if (pr !== undefined) {
      if (typeof pr === "number" && Number.isInteger(pr) && Math.abs(pr) <= 1000000) priority = pr;
      else this.error("invalid-value", pointer + "/priority", `"priority" must be an integer between -1000000 and 1000000, not ${show(pr)}`);
    }
    const universalLink = this.bool(field("universalLink"), pointer + "/universalLink") ?? true;
    if (redirect) {
      for (const n of redirect.paramNames) {
        if (!pathParams.includes(n)) this.error("unknown-param", pointer + "/redirect", `the redirect uses :${n}, which the route's pattern does not bind`);
      }
    }
    if (name === null || patterns.length === 0) return null;
    const queryDeclarations = params.filter((d) => !patterns.every((pt) => pt.expansions.every((e) => e.some((s) => s.kind !== "literal" && s.name === d.name))));
    const queryChecks = queryDeclarations.filter((d) => d.type.name !== "string" || (d.required && d.defaultValue === undefined));
    const sinceText = field("since"), untilText = field("until");
    return {
      index, name, patterns, patternsAsList: asList, hosts, hostsAsWritten: hostsWritten, destination, presentation, params,
      queryDeclarations, queryChecks, inject, variants, since, until,
      sinceText: typeof sinceText === "string" ? sinceText : null, untilText: typeof untilText === "string" ? untilText : null,
      priority, universalLink, redirect,
    };
  }

  protected decodeParams(value: JSONValue, pointer: string, boundEverywhere: string[]): ParamDeclaration[] {
    if (!isObject(value)) {
      this.error("type-mismatch", pointer, "\"params\" must be an object of param names to declarations");
      return [];
    }
    const out: ParamDeclaration[] = [];
    for (const name of sortedKeys(value)) {
      const d = this.decodeParam(name, value[name], `${pointer}/${pointerToken(name)}`, boundEverywhere.includes(name));
      if (d) out.push(d);
    }
    return out;
  }

  protected decodeParam(name: string, value: JSONValue, pointer: string, requiredByDefault: boolean): ParamDeclaration | null {
    if (!isObject(value)) {
      this.error("type-mismatch", pointer, "a param declaration is an object such as {\"type\": \"int\"}");
      return null;
    }
    this.checkKeys(value, pointer, ["type", "values", "pattern", "required", "default", "description"]);
    let type: ParamType = STRING;
    const t = get(value, "type");
    if (t === undefined || t === "string") type = STRING;
    else if (t === "int" || t === "uuid" || t === "slug") type = { name: t };
    else if (t === "enum") {
      const items = get(value, "values");
      if (!Array.isArray(items) || items.length === 0 || !items.every((x) => typeof x === "string")) {
        this.error("invalid-param", pointer + "/values", "an enum param needs \"values\": a non-empty array of strings");
        return null;
      }
      type = { name: "enum", values: items as string[] };
    } else if (t === "regex") {
      const source = get(value, "pattern");
      if (typeof source !== "string" || source.length === 0) {
        this.error("invalid-param", pointer + "/pattern", "a regex param needs \"pattern\": the regex the whole value must match");
        return null;
      }
      try {
        type = { name: "regex", regex: new SafeRegex(source) };
      } catch (e) {
        if (!(e instanceof RegexError)) throw e;
        this.error(e.kind === "syntax" ? "invalid-regex" : "unsafe-regex", pointer + "/pattern", `"${source}": ${e.message}`);
        return null;
      }
    } else {
      this.error("unknown-type", pointer + "/type", `unknown param type ${show(t)}; use string, int, uuid, slug, enum or regex`);
      return null;
    }
    if (get(value, "values") !== undefined && type.name !== "enum") {
      this.warning("unknown-field", pointer + "/values", "\"values\" applies to enum params only");
    }
    const required = this.bool(get(value, "required"), pointer + "/required") ?? requiredByDefault;
    const d = get(value, "default");
    const defaultValue = d === undefined ? undefined : sortingKeys(d);
    if (defaultValue !== undefined && !defaultFits(defaultValue, type)) {
      this.error("invalid-default", pointer + "/default", `default ${show(defaultValue)} is not a valid ${describeType(type)}`);
    }
    return { name, type, required, defaultValue };
  }

  protected decodeVariants(value: JSONValue | undefined, pointer: string): Variant[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.error("type-mismatch", pointer, "\"variants\" must be an array");
      return [];
    }
    const variants: Variant[] = [];
    value.forEach((item, i) => {
      const p = `${pointer}/${i}`;
      if (!isObject(item)) {
        this.error("type-mismatch", p, "a variant is an object with \"when\" and \"destination\" and/or \"presentation\"");
        return;
      }
      this.checkKeys(item, p, ["when", "destination", "presentation"]);
      const presentationValue = get(item, "presentation");
      const variant: Variant = {
        platforms: null, idioms: null, appVersion: null,
        destination: this.string(get(item, "destination"), p + "/destination"),
        presentation: presentationValue === undefined ? null : this.decodePresentation(presentationValue, p + "/presentation"),
      };
      if (get(item, "destination") === undefined && presentationValue === undefined) {
        this.error("invalid-variant", p, "a variant must override \"destination\" or \"presentation\"");
      }
      const when = get(item, "when");
      if (!isObject(when)) {
        this.error("missing-field", p + "/when", "a variant needs \"when\": {\"platform\", \"idiom\", \"appVersion\"}");
        return;
      }
      for (const key of Object.keys(when)) {
        const cp = `${p}/when/${pointerToken(key)}`;
        const condition = when[key];
        if (key === "platform") {
          variant.platforms = this.stringList(condition, cp, true);
          for (const v of variant.platforms ?? []) if (!PLATFORMS.includes(v)) this.error("invalid-value", cp, `unknown platform "${v}"; use ios, android or web`);
        } else if (key === "idiom") {
          variant.idioms = this.stringList(condition, cp, true);
          for (const v of variant.idioms ?? []) if (!IDIOMS.includes(v)) this.error("invalid-value", cp, `unknown idiom "${v}"; use phone or tablet`);
        } else if (key === "appVersion") {
          const range = typeof condition === "string" ? VersionRange.parse(condition) : null;
          if (range === null) {
            this.error("invalid-version", cp, `expected a range such as ">=7.2.0 <8.0.0", not ${show(condition)}`);
            continue;
          }
          if (range.isEmpty) this.error("empty-range", cp, `"${condition}" holds for no version`);
          variant.appVersion = range;
        } else {
          this.error("unknown-condition", cp, `unknown condition "${key}"; use platform, idiom or appVersion`);
        }
      }
      variants.push(variant);
    });
    return variants;
  }

  protected decodeInject(value: JSONValue | undefined, pointer: string, known: string[]): [string, Injected][] {
    if (value === undefined) return [];
    if (!isObject(value)) {
      this.error("type-mismatch", pointer, "\"inject\" must be an object of param names to values");
      return [];
    }
    const out: [string, Injected][] = [];
    for (const key of sortedKeys(value)) {
      const member = value[key];
      if (isObject(member) && Object.keys(member).length === 1 && has(member, "param")) {
        const source = member.param;
        if (typeof source !== "string" || source.length === 0) {
          this.error("type-mismatch", `${pointer}/${pointerToken(key)}/param`, `{"param": name} copies the param called name: a non-empty string, not ${show(source)}`);
          continue;
        }
        if (!known.includes(source)) {
          this.warning("undeclared-param", `${pointer}/${pointerToken(key)}/param`, `"${source}" is neither in the pattern nor declared in "params": copied from the query when present; declare it to type-check it`);
        }
        out.push([key, { param: source }]);
      } else {
        out.push([key, { constant: sortingKeys(member) }]);
      }
    }
    return out;
  }
}

function describeType(type: ParamType): string {
  if (type.name === "enum") return `enum(${type.values.join("|")})`;
  if (type.name === "regex") return `regex(${type.regex.pattern})`;
  return type.name;
}

function defaultFits(value: JSONValue, type: ParamType): boolean {
  if (typeof value === "number" && type.name === "int") return Number.isInteger(value) && Math.abs(value) <= maxSafeInteger;
  if (typeof value === "string" && type.name === "int") return intValue(value) !== null;
  if (typeof value === "string") return accepts(type, value);
  return type.name === "string";
}

