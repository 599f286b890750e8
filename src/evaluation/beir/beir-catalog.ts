// Public retrieval question sets in BEIR format that Quarry can load and score (GET
// /industry-benchmarks). Sizes are the BEIR v1.0.0 release's (Thakur et al., NeurIPS 2021 Datasets
// and Benchmarks, table 1 and the BEIR dataset table); published nDCG@10 figures are copied from
// ../shared/datasets/PUBLISHED_SCORES.md with its source codes. Licences are those of the original
// data sets as far as known; the BEIR copies on Hugging Face are tagged CC BY-SA 4.0 wholesale,
// which does not override the originals. Use them for evaluation; check before anything else.

export interface PublishedScore {
  /** nDCG@10 on the test split (MS MARCO: dev), as a fraction */
  ndcg_at_10: number;
  system: string;
  source: string;
}

export interface BeirDatasetInfo {
  /** BEIR name: the directory and zip name */
  name: string;
  title: string;
  description: string;
  domain: string;
  licence: string;
  /** documents in the corpus, queries in the evaluation split */
  size: { documents: number; queries: number };
  /** the split the published scores use */
  split: string;
  /** graded relevance (grades above 1 exist); runs of a suite score binary relevance */
  graded: boolean;
  homepage: string;
  download_url: string;
  published: PublishedScore[];
}

const ZIP = (name: string) => `https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/${name}.zip`;
const BEIR_PAPER = "[A] BEIR paper (Thakur et al. 2021), BM25 column; see PUBLISHED_SCORES.md";
const ANSERINI = "[B] Anserini BEIR regressions, BM25 flat (castorini/anserini 81e3414); see PUBLISHED_SCORES.md";
const MINILM = "[C] MTEB results, all-MiniLM-L6-v2 (embeddings-benchmark/results f4cc6c8); see PUBLISHED_SCORES.md";

function scores(bm25: number, anseriniFlat: number | null, minilm: number): PublishedScore[] {
  const out: PublishedScore[] = [{ ndcg_at_10: bm25, system: "BM25 (Elasticsearch, BEIR paper)", source: BEIR_PAPER }];
  if (anseriniFlat !== null) out.push({ ndcg_at_10: anseriniFlat, system: "BM25 flat (Anserini, k1=0.9 b=0.4)", source: ANSERINI });
  out.push({ ndcg_at_10: minilm, system: "all-MiniLM-L6-v2 (dense)", source: MINILM });
  return out;
}

export const BEIR_CATALOG: readonly BeirDatasetInfo[] = [
  {
    name: "scifact",
    title: "SciFact",
    description: "Scientific claims checked against research paper abstracts: find the abstracts that support or refute a claim.",
    domain: "science (biomedical), fact checking",
    licence: "CC BY-NC 2.0 as listed by BEIR (claims CC BY 4.0, abstracts from S2ORC under ODC-By 1.0)",
    size: { documents: 5183, queries: 300 },
    split: "test",
    graded: false,
    homepage: "https://github.com/allenai/scifact",
    download_url: ZIP("scifact"),
    published: scores(0.665, 0.6789, 0.6451),
  },
  {
    name: "nfcorpus",
    title: "NFCorpus",
    description: "Nutrition and medical questions in lay language (NutritionFacts.org) matched to PubMed articles.",
    domain: "medicine, nutrition",
    licence: "research use (NFCorpus terms; BEIR copy tagged CC BY-SA 4.0)",
    size: { documents: 3633, queries: 323 },
    split: "test",
    graded: true,
    homepage: "https://www.cl.uni-heidelberg.de/statnlpgroup/nfcorpus/",
    download_url: ZIP("nfcorpus"),
    published: scores(0.325, 0.3218, 0.3159),
  },
  {
    name: "fiqa",
    title: "FiQA-2018",
    description: "Opinion-based financial questions from StackExchange and Reddit, answered by posts of the same forums.",
    domain: "finance",
    licence: "CC BY-SA 4.0 (as tagged on the BEIR copy)",
    size: { documents: 57638, queries: 648 },
    split: "test",
    graded: false,
    homepage: "https://sites.google.com/view/fiqa/",
    download_url: ZIP("fiqa"),
    published: scores(0.236, 0.2361, 0.3687),
  },
  {
    name: "arguana",
    title: "ArguAna",
    description: "Counter-argument retrieval: given an argument, find the best counter-argument (debate portal idebate.org).",
    domain: "argumentation",
    licence: "CC BY-SA 4.0 (as tagged on the BEIR copy)",
    size: { documents: 8674, queries: 1406 },
    split: "test",
    graded: false,
    homepage: "http://argumentation.bplaced.net/arguana/data",
    download_url: ZIP("arguana"),
    published: scores(0.315, 0.397, 0.5017),
  },
  {
    name: "scidocs",
    title: "SCIDOCS",
    description: "Citation prediction: given a paper title, find the papers it cites among Semantic Scholar abstracts.",
    domain: "science (computer science and more)",
    licence: "GNU GPL v3.0 (SciDocs repository; BEIR copy tagged CC BY-SA 4.0)",
    size: { documents: 25657, queries: 1000 },
    split: "test",
    graded: false,
    homepage: "https://allenai.org/data/scidocs",
    download_url: ZIP("scidocs"),
    published: scores(0.158, 0.149, 0.2164),
  },
  {
    name: "trec-covid",
    title: "TREC-COVID",
    description: "COVID-19 information needs of the TREC-COVID challenge over the CORD-19 collection of scientific articles.",
    domain: "biomedical (COVID-19)",
    licence: "CORD-19 dataset licence (articles under their own licences); BEIR copy tagged CC BY-SA 4.0",
    size: { documents: 171332, queries: 50 },
    split: "test",
    graded: true,
    homepage: "https://ir.nist.gov/trec-covid/",
    download_url: ZIP("trec-covid"),
    published: scores(0.656, 0.5947, 0.4723),
  },
  {
    name: "quora",
    title: "Quora",
    description: "Duplicate-question retrieval: given a Quora question, find the questions that ask the same thing.",
    domain: "community question answering",
    licence: "Quora Question Pairs terms (non-commercial); BEIR copy tagged CC BY-SA 4.0",
    size: { documents: 522931, queries: 10000 },
    split: "test",
    graded: false,
    homepage: "https://quoradata.quora.com/First-Quora-Dataset-Release-Question-Pairs",
    download_url: ZIP("quora"),
    published: scores(0.789, 0.7886, 0.8755),
  },
  {
    name: "nq",
    title: "Natural Questions (NQ)",
    description: "Real Google search questions answered by Wikipedia passages.",
    domain: "open-domain question answering (Wikipedia)",
    licence: "CC BY-SA 3.0 (Natural Questions)",
    size: { documents: 2681468, queries: 3452 },
    split: "test",
    graded: false,
    homepage: "https://ai.google.com/research/NaturalQuestions",
    download_url: ZIP("nq"),
    published: scores(0.329, 0.3055, 0.4387),
  },
  {
    name: "msmarco",
    title: "MS MARCO (passage, dev)",
    description: "Bing search queries answered by web passages; the dev split is the usual evaluation set.",
    domain: "web search",
    licence: "MS MARCO terms (non-commercial research)",
    size: { documents: 8841823, queries: 6980 },
    split: "dev",
    graded: false,
    homepage: "https://microsoft.github.io/msmarco/",
    download_url: ZIP("msmarco"),
    published: [
      { ndcg_at_10: 0.228, system: "BM25 (Elasticsearch, BEIR paper)", source: BEIR_PAPER },
      { ndcg_at_10: 0.3654, system: "all-MiniLM-L6-v2 (dense)", source: MINILM },
    ],
  },
];

export function findDataset(name: string): BeirDatasetInfo | undefined {
  const key = name.toLowerCase();
  // "fiqa-2018" is how MTEB and the published tables spell FiQA; BEIR's directory is "fiqa"
  return BEIR_CATALOG.find((d) => d.name === key || (key === "fiqa-2018" && d.name === "fiqa"));
}
