#!/bin/sh
# Screenshots of every step of the guided lesson ("Learn the IPU model"),
# in the light and the dark theme, on a 1024 × 768 and a 1440 × 900
# screen: the real program under Xvfb, Page Down pressed between steps,
# the whole screen grabbed with ImageMagick.
#   tests/screenshots-lesson.sh [BUILD_DIR] [OUT_DIR]
#   (defaults: build, data/screenshots/lesson)
# Needs xvfb-run, xdotool and imagemagick.
set -eu
build=${1:-build}
out=${2:-data/screenshots/lesson}
mkdir -p "$out"
steps=$(grep -c '^title=' data/lesson/ipu-model.lesson)
steps=$((steps - 1)) # the [lesson] group's own title
rm -f "$out"/step-*.png
for size in 1024x768 1440x900; do
for theme in light dark; do
  # the preferences in a key file of their own, not the user's settings
  config=$(mktemp -d)
  mkdir -p "$config/glib-2.0/settings"
  printf "[org/sparseexplorer/SparseExplorer]\ntheme='%s'\n" "$theme" \
    > "$config/glib-2.0/settings/keyfile"
  XDG_CONFIG_HOME=$config GSETTINGS_BACKEND=keyfile xvfb-run -a -s "-screen 0 ${size}x24" sh -c "
    '$build/app/sparse-explorer' --lesson & pid=\$!
    # the window, then its first plan (a busy machine is slow to both)
    xdotool search --sync --onlyvisible --name 'Sparse Explorer' > /dev/null
    sleep 6
    # the pointer over the lesson's text, where it raises no tooltip (and
    # inside the window: without a window manager the keys go where it is)
    eval \$(xdotool search --onlyvisible --name 'Sparse Explorer' \
             getwindowgeometry --shell | head -n 6)
    xdotool mousemove --window \$WINDOW \$((WIDTH - 100)) \$((HEIGHT / 2))
    i=1
    while [ \$i -le $steps ]; do
      import -window root \"$out/step-\$i-$theme-$size.png\"
      xdotool key Next
      sleep 4
      i=\$((i + 1))
    done
    kill \$pid"
  rm -rf "$config"
done
done
for f in "$out"/*.png; do
  convert "$f" -trim +repage "$f"
  echo "$f"
done
