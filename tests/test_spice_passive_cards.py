"""An R, C or L card of two nodes and a value alone (``R1 in out 1k``, most cards of a large deck)
is built without parsing options; the same card with its value given by name (``R1 in out
r=1k``) goes through the option parsing of every other card. Both must make the same deck: the
same components, parameter values, connections, element values for new ``.param`` values,
warnings and errors."""
import warnings

import pytest

import physlib.spice as spice

VALUE_NAMES = {"R": "r", "C": "c", "L": "l"}
# numbers with and without scale suffixes, those ngspice reads with a warning (1M, 2k7, 1F),
# expressions, a bare .param name, and values that are errors (not positive, unknown, infinite,
# not a value at all)
VALUES = ["1k", "2.2K", "10uF", "1.5meg", "1e-3", ".5e3", "+1.", "3mil", "1M", "2k7", "1F",
          "{rr*2}", "'rr/2'", "rr", "-1k", "0", "xyz", "1e400", "@1"]
# the deck around the card: a .param it may use; an .ic, which starts a capacitor at its nodes'
# difference with uic; a ground named gnd
CONTEXTS = ["", ".ic v(out)=0.25\n", ".nodeset v(in)=0.5\n"]


def outcome(card: str, context: str):
    """What reading a deck with ``card`` gives, its locations left out (the two forms of a card
    differ in their text): the deck's components, connections and nodes, the element values
    for another .param value, the warnings; or the error."""
    text = f"t\n.param rr=3k\nV1 in 0 1\n{card}\nRload out gnd 1k\n{context}.end\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            deck = spice.read(text)
        except spice.SpiceError as err:
            return "error", err.line, _message(err)
    components = [(name, type(comp).__name__, comp.parameters, sorted(comp.parameter_expressions))
                  for name, comp in deck.model.components.items()]
    values = deck.parameter_values({"rr": 5e3}, tran=(1e-6, 1e-3))
    heard = [(w.message.line, _message(w.message)) for w in caught
             if isinstance(w.message, spice.SpiceWarning)]
    return components, deck.model.connections, deck.nodes, values, heard


def _message(error) -> str:
    """The message of a SpiceError or SpiceWarning without its location."""
    location = f"{error.file}, line {error.line}: {error.text.strip()!r}: "
    text = str(error)
    assert text.startswith(location)
    return text[len(location):]


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("letter", "RCL")
def test_a_card_of_a_value_alone_builds_what_the_value_by_name_builds(letter, value, context):
    plain = outcome(f"{letter}1 in OUT {value}", context)
    named = outcome(f"{letter}1 in OUT {VALUE_NAMES[letter]}={value}", context)
    assert plain == named


@pytest.mark.parametrize("card", ["R-1 in out 1k", "Ré in out 1k", "Rload in out 1k"])
def test_a_card_of_a_value_alone_is_refused_as_any_other(card):
    # an invalid name, and a duplicate one (the deck's own Rload), with and without an option
    plain = outcome(card, "")
    with_option = outcome(card + " m=1", "")
    assert plain[0] == "error" and plain == with_option
