// What the Debian package database says about the text we mine: which package installed a file,
// the package's version, and its licence as its copyright file states it (the DEP-5 `License:`
// field, else the first licence a free-form file names). Read once from /var/lib/dpkg.
import fs from "node:fs";
import path from "node:path";

export interface PackageInfo {
  name: string;
  version: string;
  licence: string;
}

const DPKG = process.env.MODEL_DPKG_DIR ?? "/var/lib/dpkg";

/** Known licence phrases of free-form copyright files, most specific first. */
const LICENCE_PHRASES: [RegExp, string][] = [
  [/GNU Free Documentation License/i, "GFDL"],
  [/GNU (Lesser|Library) General Public License/i, "LGPL"],
  [/GNU General Public License,? (as published by the Free Software Foundation; )?(either )?version 3/i, "GPL-3+"],
  [/GNU General Public License,? (as published by the Free Software Foundation; )?(either )?version 2/i, "GPL-2+"],
  [/GNU General Public License/i, "GPL"],
  [/Apache License/i, "Apache-2.0"],
  [/Artistic License/i, "Artistic"],
  [/Python Software Foundation License|PSF LICENSE AGREEMENT/i, "PSF-2.0"],
  [/Permission is hereby granted, free of charge/i, "Expat"],
  [/Redistribution and use in source and binary forms/i, "BSD"],
  [/public domain/i, "public-domain"],
];

export class DebianPackages {
  private readonly owners = new Map<string, string>();
  private readonly files = new Map<string, string[]>();
  private readonly versions = new Map<string, string>();
  private readonly licences = new Map<string, string>();

  constructor(dpkgDir = DPKG) {
    const status = fs.readFileSync(path.join(dpkgDir, "status"), "utf8");
    for (const stanza of status.split("\n\n")) {
      const name = /^Package: (.+)$/m.exec(stanza)?.[1];
      const version = /^Version: (.+)$/m.exec(stanza)?.[1];
      if (name && version && /^Status: .* installed$/m.test(stanza)) this.versions.set(name, version);
    }
    const info = path.join(dpkgDir, "info");
    for (const f of fs.readdirSync(info)) {
      if (!f.endsWith(".list")) continue;
      const pkg = f.slice(0, -5).replace(/:[a-z0-9]+$/, "");
      const list = fs.readFileSync(path.join(info, f), "utf8").split("\n").filter(Boolean);
      for (const line of list) this.owners.set(line, pkg);
      this.files.set(pkg, [...(this.files.get(pkg) ?? []), ...list]);
    }
  }

  installed(name: string): boolean {
    return this.versions.has(name);
  }

  /** Installed package names, sorted. */
  names(): string[] {
    return [...this.versions.keys()].sort();
  }

  /** The paths a package installed (directories included), in its list's order. */
  filesOf(name: string): string[] {
    return this.files.get(name) ?? [];
  }

  /** The package that installed `file`, or null when no package did. */
  ownerOf(file: string): string | null {
    return this.owners.get(file) ?? null;
  }

  info(name: string): PackageInfo {
    return { name, version: this.versions.get(name) ?? "not installed", licence: this.licenceOf(name) };
  }

  private licenceOf(name: string): string {
    let l = this.licences.get(name);
    if (l === undefined) {
      l = readLicence(`/usr/share/doc/${name}/copyright`);
      this.licences.set(name, l);
    }
    return l;
  }
}

function readLicence(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return "unknown (no copyright file)";
  }
  const dep5 = /^License: *(\S.*)$/m.exec(text)?.[1];
  if (dep5) return dep5.trim();
  for (const [re, name] of LICENCE_PHRASES) if (re.test(text)) return name;
  return "unknown (see its copyright file)";
}
