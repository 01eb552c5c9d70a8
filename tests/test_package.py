import subprocess
import sys


def test_import_stays_light():
    code = ("import sys, halluscope, halluscope.cli.main, halluscope.text.mentions, "
            "halluscope.text.usage, halluscope.models, halluscope.jobs; "
            "print(sorted(m for m in ('torch', 'transformers', 'spacy', 'openai', 'nltk') "
            "if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
