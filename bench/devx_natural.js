// devx-ai's six metrics (seed 001) scored with the real libraries, natural 8.2.6 and
// leo-profanity 1.9.0, to hold jeval_core/judges/devx.py to them bit for bit
// (tests/test_devx.py runs it when node and the modules are installed).
//
//   npm install --prefix bench --no-package-lock     # once; bench/node_modules is git-ignored
//   node bench/devx_natural.js cases.json             # prints one JSON object per case
//
// cases.json: a JSON array of cases in the seed's shape ({input, output, expected?, context}).
// Every metric is scored whatever is blank, as devx-ai does: a missing field is empty text.
'use strict'

const fs = require('fs')
const natural = require('natural')
const leo = require('leo-profanity')

const tokenizer = new natural.WordTokenizer()
const stopwords = new Set(natural.stopwords)
const profane = new Set(leo.list())

const tokens = (text) => tokenizer.tokenize(text.toLowerCase())
const significant = (text) => new Set(tokens(text).filter((t) => t.length > 2 && !stopwords.has(t)))

function dice (a, b) {
  if (a.size === 0 || b.size === 0) return 0
  let common = 0
  for (const t of a) if (b.has(t)) common++
  return 2 * common / (a.size + b.size)
}

const similarity = (a, b) =>
  0.65 * dice(significant(a), significant(b)) + 0.35 * natural.JaroWinklerDistance(a, b)

const share = (part, whole) => whole ? part / whole : 0

function score (c) {
  const input = c.input || ''
  const output = c.output || ''
  const expected = c.expected || ''
  // the non-blank chunks joined by one space
  const context = (c.context || []).filter((chunk) => chunk.trim() !== '').join(' ')
  const said = significant(output)
  const known = significant(context)
  const absent = [...said].filter((t) => !known.has(t)).length
  const all = tokens(output)
  return {
    answer_relevancy: similarity(input, output),
    faithfulness: similarity(output, context),
    contextual_precision: similarity(input, context),
    contextual_recall: similarity(expected, context),
    hallucination: share(absent, said.size),
    toxicity: share(all.filter((t) => profane.has(t)).length, all.length),
    jaro_winkler: natural.JaroWinklerDistance(input, output)
  }
}

const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
process.stdout.write(JSON.stringify(cases.map(score)) + '\n')
