#!/bin/sh
# Screenshots of every view of the window on the quick start's sample (a
# real pruned layer), as a person sees it on a first run: the real program
# under Xvfb, the whole screen grabbed with ImageMagick.
#   tests/screenshots.sh [BUILD_DIR] [OUT_DIR] [VIEW…]
# (defaults: build, data/screenshots, every view)
# Needs xvfb-run and imagemagick (apt-get install xvfb xauth imagemagick).
set -eu
build=${1:-build}
out=${2:-data/screenshots}
mkdir -p "$out"
config=$(mktemp -d) # fresh preferences (light theme, bow), not the user's
# the views, as the program lists them ("mask, tiles, … or speedup")
views=$("$build/app/sparse-explorer" render --help |
  sed -n 's/^ *--view=VIEW *\(.*\) (required)$/\1/p' | sed 's/,//g; s/ or / /')
[ $# -le 2 ] || { shift 2; views=$*; }
for view in $views; do
  extra=""
  wait=6
  if [ "$view" = speedup ]; then extra="--sweep"; wait=60; fi
  XDG_CONFIG_HOME=$config GSETTINGS_BACKEND=keyfile xvfb-run -a -s "-screen 0 1200x800x24" sh -c "
    '$build/app/sparse-explorer' --view $view $extra \
      data/samples/transformer-attention-q-0.9.smtx & pid=\$!
    sleep $wait
    import -window root '$out/$view.png'
    kill \$pid"
  # the window sits at the top left; drop the empty screen around it
  convert "$out/$view.png" -trim +repage "$out/$view.png"
  echo "$out/$view.png"
done
rm -rf "$config"
