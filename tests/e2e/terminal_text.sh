# Text as programs send it reaches the outer terminal: combining characters (decomposed é and
# ñ) stay on their letters, dim text is dim (SGR 2), concealed text (SGR 8) is not shown, and
# an underline colour (SGR 58;5;n) turns on nothing else (it used to turn on blink).
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)
dash_start -x 120 -y 30
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal" wait_prompt "$ID"

type_line "clear; printf 'cafe\\314\\201 man\\314\\203ana end\\n'"
check "decomposed accents stay on their letters" wait_for $'^cafe\xcc\x81 man\xcc\x83ana end$'
type_line "printf 'plain \\033[2mdim\\033[22m \\033[8msecret\\033[28m \\033[58;5;196mcolour\\033[0m end\\n'"
check "the SGR line shows, without the concealed word" wait_for "^plain dim +colour end$"
SGR=$(screen_sgr | grep 'colour end')
expect_match "dim text is dim" $'\e\\[2mdim' "$SGR"
expect_no_match "nothing blinks" $'\e\\[5m' "$SGR"
expect_no_match "the concealed word is not on the screen" "secret" "$(screen | grep -v printf)"
finish
