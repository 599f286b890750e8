// The text the model is trained on: openly licensed documentation that Debian packages install
// (and the READMEs of the npm packages this project installs). Each source names its packages and
// how its files are read; files come from the package database (what the package installed), so
// the pair set is a function of the installed packages and their versions.
//
// Held out for evaluation and never read here: the corpora of src/held-out-corpora.ts, refused
// by package and by path (mine.ts).
export type SourceFormat = "html" | "xml-help" | "man" | "info" | "pod" | "dictd" | "wordnet" | "markdown";

export interface SourceSpec {
  id: string;
  format: SourceFormat;
  /** Debian packages whose files are read; "*" = every installed package (man pages, info) */
  packages: string[] | "*";
  /** which of the packages' files are read */
  files: RegExp;
  description: string;
}

export const SOURCES: SourceSpec[] = [
  { id: "python-docs", format: "html", packages: ["python3.11-doc"], files: /\/html\/.*\.html$/, description: "Python 3.11 documentation" },
  { id: "django-docs", format: "html", packages: ["python-django-doc"], files: /\.html$/, description: "Django documentation" },
  { id: "sqlalchemy-docs", format: "html", packages: ["python-sqlalchemy-doc"], files: /\.html$/, description: "SQLAlchemy documentation" },
  { id: "flask-docs", format: "html", packages: ["python-flask-doc"], files: /\.html$/, description: "Flask documentation" },
  { id: "requests-docs", format: "html", packages: ["python-requests-doc"], files: /\.html$/, description: "Requests documentation" },
  { id: "sphinx-docs", format: "html", packages: ["sphinx-doc"], files: /\.html$/, description: "Sphinx documentation" },
  { id: "git-docs", format: "html", packages: ["git-doc"], files: /\.html$/, description: "Git manual and guides" },
  { id: "apache-docs", format: "html", packages: ["apache2-doc"], files: /\/manual\/en\/.*\.html$/, description: "Apache HTTP Server manual (English pages)" },
  { id: "debian-reference", format: "html", packages: ["debian-reference-en"], files: /\.en\.html$/, description: "Debian Reference" },
  { id: "debian-faq", format: "html", packages: ["debian-faq"], files: /\.en\.html$/, description: "Debian FAQ" },
  { id: "gimp-help", format: "html", packages: ["gimp-help-en"], files: /\.html$/, description: "GIMP user manual" },
  { id: "octave-docs", format: "html", packages: ["octave-doc"], files: /\.html$/, description: "GNU Octave manual" },
  { id: "r-manuals", format: "html", packages: ["r-doc-html"], files: /\.html$/, description: "R manuals" },
  { id: "bash-docs", format: "html", packages: ["bash-doc"], files: /\.html$/, description: "Bash reference manual" },
  { id: "zsh-docs", format: "html", packages: ["zsh-doc"], files: /\.html$/, description: "Zsh manual" },
  { id: "scipy-docs", format: "html", packages: ["python-scipy-doc"], files: /\/html\/(?!_static).*\.html$/, description: "SciPy documentation" },
  { id: "pandas-docs", format: "html", packages: ["python-pandas-doc"], files: /\/html\/(?!_static).*\.html$/, description: "pandas documentation" },
  { id: "sklearn-docs", format: "html", packages: ["python-sklearn-doc"], files: /\/html\/(?!_static).*\.html$/, description: "scikit-learn documentation" },
  {
    id: "python-libs-docs",
    format: "html",
    packages: ["python-lxml-doc", "python-jinja2-doc", "python-werkzeug-doc", "python-click-doc", "python-pytest-doc", "python-cryptography-doc"],
    files: /\/html\/(?!_static).*\.html$/,
    description: "lxml, Jinja, Werkzeug, Click, pytest and cryptography documentation",
  },
  { id: "java-api", format: "html", packages: ["openjdk-17-doc"], files: /\/api\/.*\/[A-Z][A-Za-z0-9]*\.html$/, description: "Java 17 API specification (class pages)" },
  { id: "erlang-docs", format: "html", packages: ["erlang-doc"], files: /\.html$/, description: "Erlang/OTP documentation" },
  { id: "gtk-docs", format: "html", packages: ["libglib2.0-doc", "libgtk-4-doc"], files: /\.html$/, description: "GLib and GTK 4 API documentation" },
  {
    id: "mail-dns-docs",
    format: "html",
    packages: ["exim4-doc-html", "bind9-doc", "postfix-doc", "haproxy-doc"],
    files: /\.html$/,
    description: "Exim, BIND 9, Postfix and HAProxy manuals",
  },
  { id: "gnuplot-maxima-docs", format: "html", packages: ["gnuplot-doc", "maxima-doc"], files: /\.html$/, description: "gnuplot and Maxima manuals" },
  {
    id: "rust-docs",
    format: "html",
    packages: ["rust-doc"],
    files: /\/html\/(book|rust-by-example|reference|edition-guide|nomicon|cargo|rustc|rustdoc|std)\/.*\.html$/,
    description: "The Rust books, reference and standard library",
  },
  { id: "debian-handbook", format: "html", packages: ["debian-handbook"], files: /\/en-US\/.*\.html$/, description: "The Debian Administrator's Handbook" },
  {
    id: "gnome-help",
    format: "xml-help",
    packages: ["gnome-user-docs", "gnome-devel-docs", "gedit-common", "evince-common", "totem-common", "cheese-common", "shotwell-common", "brasero-common", "gnome-terminal-data"],
    files: /\/help\/C\/.*\.page$/,
    description: "GNOME desktop and application help (Mallard)",
  },
  { id: "gnumeric-help", format: "xml-help", packages: ["gnumeric-doc"], files: /\/help\/C\/gnumeric\/.*\.xml$/, description: "Gnumeric spreadsheet manual (DocBook)" },
  { id: "gnucash-docs", format: "html", packages: ["gnucash-docs"], files: /\/gnucash-(guide|help)-en\/.*\.html$/, description: "GnuCash tutorial, guide and help" },
  { id: "perl-pod", format: "pod", packages: ["perl-doc"], files: /\/pod\/[^/]+\.pod$/, description: "Perl manual and FAQ (POD)" },
  { id: "man-pages", format: "man", packages: "*", files: /^\/usr\/share\/man\/man[1-8][^/]*\/[^/]+\.gz$/, description: "English manual pages of every installed package" },
  { id: "info-manuals", format: "info", packages: "*", files: /^\/usr\/share\/info\/[^/]+\.info(-\d+)?\.gz$/, description: "GNU Info manuals of every installed package" },
  { id: "gcide", format: "dictd", packages: ["dict-gcide"], files: /gcide\.index$/, description: "GNU Collaborative International Dictionary of English" },
  { id: "foldoc", format: "dictd", packages: ["dict-foldoc"], files: /foldoc\.index$/, description: "Free On-line Dictionary of Computing" },
  { id: "jargon", format: "dictd", packages: ["dict-jargon"], files: /jargon\.index$/, description: "The Jargon File" },
  { id: "vera", format: "dictd", packages: ["dict-vera"], files: /vera\.index$/, description: "V.E.R.A., computing acronyms" },
  { id: "wordnet", format: "wordnet", packages: ["wordnet-base"], files: /\/data\.noun$/, description: "WordNet 3.0 synsets, glosses and hypernyms" },
];

/** The npm packages' READMEs (node_modules of this project), licence from each package.json. */
export const NPM_SOURCE: SourceSpec = {
  id: "npm-readmes",
  format: "markdown",
  packages: [],
  files: /^README(\.md|\.markdown)?$/i,
  description: "READMEs of the npm packages this project installs",
};

