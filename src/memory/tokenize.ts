/**
 * Words for full-text search in any script. Intl.Segmenter finds word boundaries by dictionary in Chinese and
 * Japanese, which have no spaces; but a query's segmentation can differ from a document's ("吃肉" vs "肉"), so a
 * word with Chinese characters also yields each of them, and BM25 ranks the documents that share whole words higher.
 */

/** Made on first use: building it pages in ICU's word-break data, which a gateway need not hold before anyone searches. */
let segmenter: Intl.Segmenter | undefined;
const HAN = /\p{Script=Han}/u;
/**
 * Words so common that matching them says nothing about relevance ("what do I eat" should not recall every
 * memory with "I" in it), and Chinese characters that are mostly grammar when they stand alone.
 */
const STOP_WORDS = new Set(
  ("a an and are as at be but by do does did for from has have had i i'm in is it its me my of on or our so that the " +
    "their them they this to was we were what when where which who why will with you your 的 了 是 我 你 他 她 在 吗 呢 吧 啊 和 也 就 都 不")
    .split(" "),
);

/** The search terms of `text`, normalized (NFKC, lower case), in order, duplicates kept. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "word" });
  for (const { segment, isWordLike } of segmenter.segment(text.normalize("NFKC"))) {
    if (!isWordLike) continue;
    const word = segment.toLowerCase();
    if (!STOP_WORDS.has(word)) terms.push(word);
    if (word.length > 1 && HAN.test(word)) {
      for (const char of word) if (HAN.test(char) && !STOP_WORDS.has(char)) terms.push(char);
    }
  }
  return terms;
}
