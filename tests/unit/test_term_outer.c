/* COLORTERM=truecolor|24bit is honoured as other programs honour it: the dashboard asks curses
 * for the direct-colour entry of the same terminal (xterm-256color -> xterm-direct), so 24-bit
 * colours reach the outer terminal uncut; without COLORTERM, or with TERM direct already,
 * TERM's own entry stays. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tui/term/outer_colors.h"

static char names[4][TUI_TERM_NAME_MAX];

static void test_candidates(void **state)
{
    (void)state;
    assert_int_equal(tui_outer_direct_candidates("xterm-256color", "truecolor", names, 4), 1);
    assert_string_equal(names[0], "xterm-direct");
    assert_int_equal(tui_outer_direct_candidates("tmux-256color", "24bit", names, 4), 1);
    assert_string_equal(names[0], "tmux-direct");
    assert_int_equal(tui_outer_direct_candidates("alacritty", "truecolor", names, 4), 1);
    assert_string_equal(names[0], "alacritty-direct");
    assert_int_equal(tui_outer_direct_candidates("xterm-kitty", "TRUECOLOR", names, 4), 2);
    assert_string_equal(names[0], "xterm-kitty-direct");
    assert_string_equal(names[1], "xterm-direct");
    /* not asked for, or direct already */
    assert_int_equal(tui_outer_direct_candidates("xterm-256color", NULL, names, 4), 0);
    assert_int_equal(tui_outer_direct_candidates("xterm-256color", "", names, 4), 0);
    assert_int_equal(tui_outer_direct_candidates("xterm-256color", "yes", names, 4), 0);
    assert_int_equal(tui_outer_direct_candidates("xterm-direct", "truecolor", names, 4), 0);
    assert_int_equal(tui_outer_direct_candidates("xterm-direct2", "truecolor", names, 4), 0);
    assert_int_equal(tui_outer_direct_candidates(NULL, "truecolor", names, 4), 0);
}

/* With the entries installed (ncurses-term, scripts/install-deps.sh): the direct one is chosen
 * only when COLORTERM asks and TERM's entry has fewer colours. */
static void test_installed_entry(void **state)
{
    (void)state;
    setenv("TERM", "xterm-256color", 1);
    unsetenv("COLORTERM");
    assert_null(tui_outer_term());
    setenv("COLORTERM", "truecolor", 1);
    const char *t = tui_outer_term();
    assert_non_null(t); /* fails without ncurses-term's xterm-direct */
    assert_string_equal(t, "xterm-direct");
    setenv("TERM", "xterm-direct", 1);
    assert_null(tui_outer_term());
    setenv("TERM", "no-such-terminal-here", 1);
    assert_null(tui_outer_term());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_candidates),
        cmocka_unit_test(test_installed_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
