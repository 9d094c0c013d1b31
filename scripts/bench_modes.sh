# Sourced by the bench scripts: each benchmark mode's `goce-warc process` flags.
# shellcheck disable=SC2034  # used by the scripts that source this file
declare -A flags=(
  [default]="--device cpu"
  [markdown]="--device cpu --markdown"
  [resnet]="--device cpu --classifier resnet"
  [cpu-stages]="--device cpu --classifier resnet --skip-network"
  [html-features]="--classifier html-features --renderer lite"
  [extract]="--classifier none"
  [all-text]="--classifier none --extractor all-text"
)
