@pin-0.16.0
Feature: Skills — discovery, the skill tool and the prompt helper (SPEC §3, §0.5, §0.6)

  @spec-0.6 @shared-examples
  @clause-0.skill-tool.byte-exact @clause-0.skill-tool.base-directory-line
  @clause-0.skill-tool.relative-paths-line @clause-3.skill-tool.output-open-tag
  @clause-3.skill-tool.output-trimmed-body @clause-3.skill-tool.output-base-directory
  @clause-3.skill-tool.output-relative-paths @clause-3.skill-tool.output-note-sampled
  @clause-3.skill-tool.output-files-block @clause-3.s4.hello-world-stable
  @clause-3.s4.directory-byte-identical @clause-3.extensions.directories-only-byte-identical
  @clause-3.frontmatter.body-content @partial-clause-0.contract.examples-match
  @partial-clause-3.skill-tool.sample-ten @partial-clause-5.usage.execute
  Scenario: the shared hello-world skill loads as the byte-exact progressive-disclosure block
    Given a toolkit built with:
      """
      {"skillsDir": "{{EXAMPLES}}/skills"}
      """
    When "skill" is executed with:
      """
      {"name": "hello-world"}
      """
    Then the result is not an error
    And the output is:
      """
      <skill_content name="hello-world">
      # Skill: hello-world

      # Hello World Skill

      This is the skill body. When the model calls the `skill` tool with
      `{ "name": "hello-world" }`, everything below the frontmatter is injected into the
      conversation, along with a sampled list of files in this directory.

      ## Steps

      1. Read `scripts/greet.sh` in this skill's base directory.
      2. Run it with the user's name.
      3. Report the greeting back.

      Relative paths (like `scripts/greet.sh`) are resolved against the base directory
      printed in the tool output.

      Base directory for this skill: file://{{EXAMPLES}}/skills/hello-world
      Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
      Note: file list is sampled.

      <skill_files>
      <file>{{EXAMPLES}}/skills/hello-world/scripts/greet.sh</file>
      </skill_files>
      </skill_content>
      """
    And the output matches snapshot "skill-hello-world"

  @spec-0.6 @shared-examples
  @clause-3.skills-prompt.catalog @clause-3.skills-prompt.preamble-byte-identical
  @clause-3.skills-prompt.preamble-line-1 @clause-3.skills-prompt.preamble-line-2
  @clause-3.skills-prompt.list-heading @clause-4.toolkit.skills-prompt @clause-5.usage.skills-prompt
  @partial-clause-0.skills-prompt.preamble-and-list @partial-clause-0.contract.examples-match
  Scenario: the skills prompt for the shared examples is the preamble plus the catalog
    Given a toolkit built with:
      """
      {"skillsDir": "{{EXAMPLES}}/skills"}
      """
    Then the skills prompt is:
      """
      Skills provide specialized instructions and workflows for specific tasks.
      Use the skill tool to load a skill when a task matches its description.

      ## Available Skills
      - **hello-world**: A tiny example skill. Use when you want to see how skill loading (progressive disclosure) works end to end.
      """
    And the skills prompt matches snapshot "skills-prompt-hello-world"

  @spec-3
  @clause-3.skill-txt.verbatim @clause-3.skill-txt.line-1 @clause-3.skill-txt.line-2
  @clause-3.skill-txt.line-3 @clause-3.skill-tool.name @clause-3.skill-tool.input-schema
  @clause-3.skill-tool.single-default @partial-clause-1.tool.source-values
  Scenario: the skill tool carries the verbatim loader description and the §3 input schema
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic"}
      """
    Then the tool "skill" matches:
      """
      {"name": "skill", "source": "skill",
       "description": "Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.\n\nUse this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.\n\nThe skill name must match one of the skills listed in your system prompt.",
       "inputSchema": {"$partial": true, "type": "object",
         "properties": {"name": {"type": "string", "description": "The name of the skill to load"}},
         "required": ["name"]}}
      """

  @spec-3
  @clause-3.skills-prompt.list-heading @partial-clause-0.skills-prompt.preamble-and-list
  @partial-clause-4.create.skills-dir
  Scenario: the skills prompt lists described skills sorted by name
    Given a toolkit built with:
      """
      {"skillsDir": ["{{FIXTURES}}/skills/undescribed", "{{FIXTURES}}/skills/basic"]}
      """
    Then the skills prompt is:
      """
      Skills provide specialized instructions and workflows for specific tasks.
      Use the skill tool to load a skill when a task matches its description.

      ## Available Skills
      - **alpha**: First fixture skill.
      - **beta**: Second fixture skill.
      - **gamma**: Third fixture skill.
      """

  @spec-3 @partial-clause-0.skills-prompt.preamble-and-list @partial-clause-3.frontmatter.name-required
  Scenario: an undescribed skill is left out of the prompt but still loads through the tool
    Given a toolkit built with:
      """
      {"skillsDir": ["{{FIXTURES}}/skills/undescribed", "{{FIXTURES}}/skills/basic"]}
      """
    When "skill" is executed with:
      """
      {"name": "quiet"}
      """
    Then the result is not an error
    And the output contains "No description here."
    And the skills prompt does not mention "quiet"

  @spec-3 @clause-3.skills-prompt.no-skills @partial-clause-0.skills-prompt.preamble-and-list
  Scenario: with no described skill the prompt has no preamble
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/undescribed"}
      """
    Then the skills prompt matches:
      """
      {"$oneOf": ["", "No skills are currently available."]}
      """

  @spec-3 @clause-3.skill-tool.not-found
  Scenario: loading an unknown skill is an isError result naming the available skills
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic"}
      """
    When "skill" is executed with:
      """
      {"name": "nope"}
      """
    Then the result is an error
    And the output matches:
      """
      ^Skill "nope" not found\. Available( skills)?: alpha, beta, gamma$
      """

  @spec-0.5 @clause-3.discovery.glob @partial-clause-0.skills.glob
  Scenario: discovery finds every **/SKILL.md under the root
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic"}
      """
    Then the skill catalog names are:
      """
      ["alpha", "beta", "gamma"]
      """

  @spec-0.5 @partial-clause-3.discovery.duplicate-first-wins @partial-clause-0.skills.glob
  Scenario: with two roots the first root's skill wins a name collision
    Given a file "r1/same/SKILL.md" containing:
      """
      ---
      name: same
      description: From the first root.
      ---
      First.
      """
    And a file "r2/same/SKILL.md" containing:
      """
      ---
      name: same
      description: From the second root.
      ---
      Second.
      """
    And a toolkit built with:
      """
      {"skillsDir": ["{{TMP}}/r1", "{{TMP}}/r2"]}
      """
    Then the skill catalog names are:
      """
      ["same"]
      """
    And the skills prompt matches:
      """
      {"$contains": "- **same**: From the first root."}
      """

  @spec-3 @partial-clause-3.discovery.follows-symlinks
  Scenario: discovery follows a symlinked directory
    Given a file "outside/linked/SKILL.md" containing:
      """
      ---
      name: linked
      description: Reached through a symlink.
      ---
      Linked body.
      """
    And a directory "root"
    And a symlink "root/ext" pointing to "{{TMP}}/outside"
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill catalog names are:
      """
      ["linked"]
      """

  @spec-3 @partial-clause-3.discovery.follows-symlinks
  Scenario: discovery follows a symlinked SKILL.md file
    Given a file "store/target.md" containing:
      """
      ---
      name: filelink
      description: A symlinked SKILL.md.
      ---
      File link body.
      """
    And a symlink "root/filelink/SKILL.md" pointing to "{{TMP}}/store/target.md"
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill catalog names are:
      """
      ["filelink"]
      """

  @spec-3 @clause-3.discovery.symlink-cycles
  Scenario: a symlink cycle is guarded and discovery terminates
    Given a file "root/a/SKILL.md" containing:
      """
      ---
      name: a
      description: Inside a cycle.
      ---
      Body.
      """
    And a symlink "root/a/loop" pointing to "{{TMP}}/root"
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill catalog names are:
      """
      ["a"]
      """

  @spec-3 @partial-clause-3.frontmatter.standard-yaml @partial-clause-3.frontmatter.block-scalars
  Scenario Outline: frontmatter is parsed by a YAML parser and scalar values are trimmed
    Given a file "root/s/SKILL.md" containing:
      """
      ---
      name: <name>
      description: <description>
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skills prompt matches:
      """
      {"$contains": "<line>"}
      """

    Examples:
      | name            | description                 | line                                |
      | plain           | A plain description.        | - **plain**: A plain description.   |
      | "double-quoted" | "Quoted: with a colon"      | - **double-quoted**: Quoted: with a colon |
      | 'single'        | 'It''s single'              | - **single**: It's single           |

  @spec-3 @clause-3.frontmatter.trimmed
  Scenario: a quoted description keeps no surrounding whitespace after trimming
    Given a file "root/padded/SKILL.md" containing:
      """
      ---
      name: "  padded  "
      description: "   padded value   "
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skills prompt matches:
      """
      {"$regex": "\n- \\*\\*padded\\*\\*: padded value$"}
      """

  @spec-3 @partial-clause-3.frontmatter.standard-yaml @partial-clause-3.frontmatter.block-scalars
  Scenario: a folded block scalar description is joined with spaces
    Given a file "root/folded/SKILL.md" containing:
      """
      ---
      name: folded
      description: >
        This is folded
        across lines.
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skills prompt matches:
      """
      {"$regex": "\n- \\*\\*folded\\*\\*: This is folded across lines\\.$"}
      """

  @spec-3 @partial-clause-3.frontmatter.standard-yaml @partial-clause-3.frontmatter.block-scalars
  Scenario: a literal block scalar keeps its line break and loses the trailing newline
    Given a file "root/literal/SKILL.md" containing:
      """
      ---
      name: literal
      description: |
        Line one
        Line two
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skills prompt matches:
      """
      {"$regex": "- \\*\\*literal\\*\\*: Line one\nLine two$"}
      """

  @spec-3 @clause-3.frontmatter.malformed-graceful
  Scenario: malformed YAML skips only that skill and never breaks discovery
    Given a file "root/broken/SKILL.md" containing:
      """
      ---
      name: [unclosed
      description: broken
      ---
      Body.
      """
    And a file "root/fine/SKILL.md" containing:
      """
      ---
      name: fine
      description: Still here.
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill catalog names are:
      """
      ["fine"]
      """

  @spec-3 @clause-3.frontmatter.name-required @partial-clause-0.skills.glob
  Scenario: a skill with no name is skipped, the others load
    Given a file "root/anon/SKILL.md" containing:
      """
      ---
      description: I have no name.
      ---
      Body.
      """
    And a file "root/named/SKILL.md" containing:
      """
      ---
      name: named
      description: Has a name.
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill catalog names are:
      """
      ["named"]
      """

  @spec-3
  @clause-3.skill-tool.output-trimmed-body @clause-3.frontmatter.body-content @clause-3.s5.minus-one-omit
  Scenario: the body is trimmed in the skill block
    Given a file "root/ws/SKILL.md" containing:
      """
      ---
      name: ws
      description: Whitespace around the body.
      ---


         Body with surrounding whitespace.   


      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root", "skillSampleLimit": -1}
      """
    When "skill" is executed with:
      """
      {"name": "ws"}
      """
    Then the output is:
      """
      <skill_content name="ws">
      # Skill: ws

      Body with surrounding whitespace.

      Base directory for this skill: file://{{TMP}}/root/ws
      Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
      </skill_content>
      """

  @spec-3.S5
  @clause-3.skill-tool.sample-ten @clause-3.skill-tool.output-open-tag
  @clause-3.skill-tool.output-relative-paths @clause-3.skill-tool.output-note-sampled
  @clause-3.skill-tool.output-files-block
  Scenario: the default sample lists 10 of the sibling files
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/sampling"}
      """
    When "skill" is executed with:
      """
      {"name": "many"}
      """
    Then the output matches:
      """
      (?s)^<skill_content name="many">\n# Skill: many\n\nMany files\.\n\nBase directory for this skill: file://[^\n]*/skills/sampling/many\nRelative paths in this skill \(e\.g\., scripts/, reference/\) are relative to this base directory\.\nNote: file list is sampled\.\n\n<skill_files>\n(?:<file>[^\n]*/many/(?:f[0-9]{2}|sub/z)\.txt</file>\n){10}</skill_files>\n</skill_content>$
      """

  @spec-3.S5 @since-0.19.0 @clause-3.skill-tool.sample-ten @clause-3.skill-tool.output-files-block
  Scenario: the default sample lists the first 10 sibling files in sorted order
    SPEC 0.16.0 §3 says "Sample up to 10 sibling files" without saying which; python sorts by
    relative path before the cap since 0.19.0 (addenda A22/A24/A25), so this holds from 0.19.0.
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/sampling"}
      """
    When "skill" is executed with:
      """
      {"name": "many"}
      """
    Then the output is:
      """
      <skill_content name="many">
      # Skill: many

      Many files.

      Base directory for this skill: file://{{FIXTURES}}/skills/sampling/many
      Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
      Note: file list is sampled.

      <skill_files>
      <file>{{FIXTURES}}/skills/sampling/many/f00.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f01.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f02.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f03.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f04.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f05.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f06.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f07.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f08.txt</file>
      <file>{{FIXTURES}}/skills/sampling/many/f09.txt</file>
      </skill_files>
      </skill_content>
      """

  @spec-3.S5 @clause-3.s5.zero-default
  Scenario: an explicit sample limit of 0 means the default of 10
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/sampling", "skillSampleLimit": 0}
      """
    When "skill" is executed with:
      """
      {"name": "many"}
      """
    Then the output matches:
      """
      (?s)<skill_files>\n(?:<file>[^\n]*/many/(?:f[0-9]{2}|sub/z)\.txt</file>\n){10}</skill_files>\n</skill_content>$
      """

  @spec-3.S5 @clause-3.s5.positive-cap
  Scenario: a positive sample limit caps the file list
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/sampling", "skillSampleLimit": 2}
      """
    When "skill" is executed with:
      """
      {"name": "many"}
      """
    Then the output matches:
      """
      (?s)<skill_files>\n(?:<file>[^\n]*/many/(?:f[0-9]{2}|sub/z)\.txt</file>\n){2}</skill_files>\n</skill_content>$
      """

  @spec-3.S5 @partial-clause-3.s5.positive-cap @partial-clause-3.skill-tool.sample-ten
  Scenario: a sample limit above the file count lists every sibling, nested ones included
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/sampling", "skillSampleLimit": 20}
      """
    When "skill" is executed with:
      """
      {"name": "many"}
      """
    Then the output matches:
      """
      (?s)<skill_files>\n(?:<file>[^\n]*/many/(?:f[0-9]{2}|sub/z)\.txt</file>\n){13}</skill_files>\n</skill_content>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f00\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f01\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f02\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f03\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f04\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f05\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f06\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f07\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f08\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f09\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f10\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/f11\.txt</file>$
      """
    And the output matches:
      """
      (?m)^<file>[^\n]*/many/sub/z\.txt</file>$
      """

  @spec-3.S5 @clause-3.s5.minus-one-omit
  Scenario: a sample limit of -1 omits the note and the whole <skill_files> block
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/sampling", "skillSampleLimit": -1}
      """
    When "skill" is executed with:
      """
      {"name": "many"}
      """
    Then the output is:
      """
      <skill_content name="many">
      # Skill: many

      Many files.

      Base directory for this skill: file://{{FIXTURES}}/skills/sampling/many
      Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
      </skill_content>
      """

  @spec-3.S1 @spec-3.S4
  @clause-3.s4.no-resources-no-block @partial-clause-3.s4.data-logical-base
  @partial-clause-3.s1.skill-def-shape
  Scenario: a data skill without resources is instruction-only with a logical base
    Given a toolkit built with:
      """
      {"skills": [{"name": "data-a", "description": "Data A", "content": "\n  Data A body.  \n"}]}
      """
    When "skill" is executed with:
      """
      {"name": "data-a"}
      """
    Then the output is:
      """
      <skill_content name="data-a">
      # Skill: data-a

      Data A body.

      Base directory for this skill: skill://data-a/
      Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
      </skill_content>
      """

  @spec-3.S1 @spec-3.S4 @clause-3.s4.data-logical-base @partial-clause-3.s1.skill-def-shape
  Scenario: a data skill lists its supplied resources and no host path
    Given a toolkit built with:
      """
      {"skills": [{"name": "data-b", "description": "Data B", "content": "Use the resources.",
                   "resources": ["ref/guide.md", "scripts/run.sh"]}]}
      """
    When "skill" is executed with:
      """
      {"name": "data-b"}
      """
    Then the output is:
      """
      <skill_content name="data-b">
      # Skill: data-b

      Use the resources.

      Base directory for this skill: skill://data-b/
      Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
      Note: file list is sampled.

      <skill_files>
      <file>ref/guide.md</file>
      <file>scripts/run.sh</file>
      </skill_files>
      </skill_content>
      """

  @spec-3.S4 @partial-clause-3.s4.data-logical-base @partial-clause-3.s1.skill-def-shape
  Scenario: a data skill with an explicit base uses it verbatim
    Given a toolkit built with:
      """
      {"skills": [{"name": "data-c", "description": "Data C", "content": "C.", "base": "mem://custom/c"}]}
      """
    When "skill" is executed with:
      """
      {"name": "data-c"}
      """
    Then the output contains "Base directory for this skill: mem://custom/c\n"

  @spec-3.S1 @partial-clause-3.s1.dedupe-first-wins
  Scenario: directory skills precede data skills, so a directory skill wins a shared name
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic",
       "skills": [{"name": "alpha", "description": "Data alpha", "content": "data"}, {"name": "delta", "description": "Data delta", "content": "d"}]}
      """
    Then the skill catalog names are:
      """
      ["alpha", "beta", "gamma", "delta"]
      """
    And the skills prompt matches:
      """
      {"$contains": "- **alpha**: First fixture skill."}
      """

  @spec-3.S1 @partial-clause-3.s1.dedupe-first-wins
  Scenario: a skill provider's skills join the catalog after the data skills
    Given a toolkit built with:
      """
      {"skills": [{"name": "one", "description": "From data", "content": "1"}],
       "skillProvider": {"skills": [{"name": "one", "description": "From provider", "content": "x"},
                                    {"name": "two", "description": "From provider", "content": "2"}]}}
      """
    Then the skill catalog names are:
      """
      ["one", "two"]
      """
    And the skills prompt matches:
      """
      {"$contains": "- **one**: From data"}
      """

  @spec-3.S1 @clause-3.s1.provider-isolated
  Scenario: a failing skill provider is isolated and the other sources still load
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skillProvider": {"fail": "boom provider"}}
      """
    Then the skill catalog names are:
      """
      ["alpha", "beta", "gamma"]
      """
    And the toolkit has the tool "skill"
    And the toolkit has the tool "read"

  @spec-3.S1 @seed-001 @seed-only
  Scenario: a failing skill provider is reported as an error entry (seed 001 ":errors")
    # Seed 001 promises an entry in `:errors`, not its words (NOTES #23, #320: the
    # @beyond-spec twin below checks that it carries the provider's message); the positive
    # control: with a provider that works there is no error.
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skillProvider": {"skills": []}}
      """
    Then there are no errors
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skillProvider": {"fail": "boom provider"}}
      """
    Then there is an error for "<skill-provider>"

  @spec-3.S1 @beyond-spec
  Scenario: a failing skill provider's error entry carries the provider's message
    Beyond the SPEC: seed 001 promises an `:errors` entry for a `:skill-provider` that throws
    but not its words (NOTES #23, #320); the reference's entry carries the thrown message.
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skillProvider": {"fail": "boom provider"}}
      """
    Then an error mentions "boom provider"

  @spec-3.S2 @partial-clause-3.s2.semantics @partial-clause-3.s2.filter
  Scenario Outline: the skills filter is an allowlist with any true entry, else a drop-list
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skillsFilter": <filter>}
      """
    Then the skill catalog names are:
      """
      <names>
      """

    Examples:
      | filter                                 | names                      |
      | {}                                     | ["alpha", "beta", "gamma"] |
      | {"alpha": true, "beta": false}         | ["alpha"]                  |
      | {"alpha": true, "gamma": true}         | ["alpha", "gamma"]         |
      | {"beta": false}                        | ["alpha", "gamma"]         |
      | {"nosuch": false}                      | ["alpha", "beta", "gamma"] |
      | {"nosuch": true}                       | []                         |
      | {"alpha": false, "beta": false, "gamma": false} | []                |

  @spec-3.S2 @partial-clause-3.s2.semantics
  Scenario: unknown names in the skills filter are ignored with a warning
    # S2 says "warned once" and gives no words (NOTES #320: the @beyond-spec twin below checks
    # that the warning names the unknown skill); the filter drops nothing.
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skillsFilter": {"nosuch": false}}
      """
    Then there is a warning
    And the skill catalog names are:
      """
      ["alpha", "beta", "gamma"]
      """

  @spec-3.S2 @beyond-spec
  Scenario: the warning for an unknown name in the skills filter names it
    Beyond the SPEC: S2 says "unknown names ignored + warned once" and gives the warning no
    words (NOTES #320); the reference names the unknown skill.
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skillsFilter": {"nosuch": false}}
      """
    Then a warning mentions "nosuch"

  @spec-0.5 @partial-clause-3.discovery.duplicate-first-wins
  Scenario: a duplicate skill name keeps the first and warns
    Given a file "r1/same/SKILL.md" containing:
      """
      ---
      name: same
      description: first
      ---
      x
      """
    And a file "r2/same/SKILL.md" containing:
      """
      ---
      name: same
      description: second
      ---
      x
      """
    And a toolkit built with:
      """
      {"skillsDir": ["{{TMP}}/r1", "{{TMP}}/r2"]}
      """
    # §3 says "log a warning" and gives no words (NOTES #320: the @beyond-spec twin below
    # checks that it names the skill).
    Then there is a warning
    And the skill catalog names are:
      """
      ["same"]
      """

  @spec-0.5 @beyond-spec
  Scenario: the warning for a duplicate skill name names the skill
    Beyond the SPEC: §3 says "Duplicate names: first wins, log a warning" and gives the
    warning no words (NOTES #320); the reference names the duplicated skill.
    Given a file "r1/same/SKILL.md" containing:
      """
      ---
      name: same
      description: first
      ---
      x
      """
    And a file "r2/same/SKILL.md" containing:
      """
      ---
      name: same
      description: second
      ---
      x
      """
    And a toolkit built with:
      """
      {"skillsDir": ["{{TMP}}/r1", "{{TMP}}/r2"]}
      """
    Then a warning mentions "same"

  @spec-3.S2 @clause-3.s2.before-skill-tool
  Scenario: a filtered-out skill cannot be loaded through the skill tool
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skillsFilter": {"alpha": true}}
      """
    When "skill" is executed with:
      """
      {"name": "beta"}
      """
    Then the result is an error
    And the skills prompt does not mention "beta"

  @spec-3.S2 @seed-003 @clause-2.sugar.disable-skills
  Scenario: disableSkills removes skills from the catalog
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "disableSkills": ["gamma", "nosuch"]}
      """
    Then the skill catalog names are:
      """
      ["alpha", "beta"]
      """

  @spec-3.S2 @seed-001 @partial-clause-2.sugar.compose
  Scenario: an explicit skillsFilter entry overrides disableSkills (seed 001 merge order)
    Given a toolkit built with:
      """
      {"builtins": false, "skills": [{"name": "legacy", "description": "d", "content": "b"}],
       "disableSkills": ["legacy"], "skillsFilter": {"legacy": true}}
      """
    When "skill" is executed with:
      """
      {"name": "legacy"}
      """
    Then the result is not an error

  @spec-3.S3 @partial-clause-3.s3.list-shape @partial-clause-3.info.shape
  Scenario: the inventory lists valid skills and nothing skipped for a clean tree
    When the skills are listed with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic"}
      """
    Then the skill inventory matches:
      """
      {"skills": {"$unordered": [
         {"$partial": true, "name": "alpha", "description": "First fixture skill."},
         {"$partial": true, "name": "beta", "description": "Second fixture skill."},
         {"$partial": true, "name": "gamma", "description": "Third fixture skill."}]},
       "skipped": []}
      """

  @spec-3.S3 @clause-3.s3.list-shape @partial-clause-3.s3.skip-reasons
  Scenario: the inventory types every skip reason it can observe
    Given a file "r1/a-missing/SKILL.md" containing:
      """
      ---
      description: no name
      ---
      x
      """
    And a file "r1/b-malformed/SKILL.md" containing:
      """
      ---
      name: [unclosed
      ---
      x
      """
    And a file "r1/dup/SKILL.md" containing:
      """
      ---
      name: dup
      description: first
      ---
      x
      """
    And a file "r2/dup/SKILL.md" containing:
      """
      ---
      name: dup
      description: second
      ---
      x
      """
    When the skills are listed with:
      """
      {"skillsDir": ["{{TMP}}/r1", "{{TMP}}/r2"]}
      """
    Then the skill inventory matches:
      """
      {"skills": [{"$partial": true, "name": "dup", "description": "first"}],
       "skipped": {"$unordered": [
         {"$partial": true, "location": "{{TMP}}/r1/a-missing/SKILL.md", "reason": "missing-name"},
         {"$partial": true, "location": "{{TMP}}/r1/b-malformed/SKILL.md", "reason": "malformed-frontmatter"},
         {"$partial": true, "location": "{{TMP}}/r2/dup/SKILL.md", "reason": "duplicate-name"}]}}
      """

  @spec-3.S3 @partial-clause-3.s3.skip-reasons @partial-clause-3.frontmatter.malformed-graceful
  Scenario: a SKILL.md that is not UTF-8 never crashes discovery, and the other skills load
    # S3 lists the reason `unreadable` without saying what makes a file unreadable (NOTES #20,
    # #307): a port may skip such a file (as `unreadable`, or for the frontmatter it finds) or
    # decode it lossily and list it. What §3 fixes: discovery never crashes and the good skill loads.
    Given a file "root/bad/SKILL.md" containing invalid UTF-8
    And a file "root/good/SKILL.md" containing:
      """
      ---
      name: good
      description: Readable.
      ---
      x
      """
    When the skills are listed with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill inventory matches:
      """
      {"$oneOf": [
        {"skills": [{"$partial": true, "name": "good"}],
         "skipped": [{"$partial": true, "location": "{{TMP}}/root/bad/SKILL.md",
                      "reason": {"$oneOf": ["unreadable", "malformed-frontmatter", "missing-name"]}}]},
        {"skills": {"$unordered": [{"$partial": true, "name": "good"},
                                   {"$partial": true, "location": "{{TMP}}/root/bad/SKILL.md"}]},
         "skipped": []}]}
      """

  @spec-3.S3 @beyond-spec
  Scenario: a SKILL.md that is not UTF-8 is skipped as unreadable
    Beyond the SPEC: S3 names the reason `unreadable` but not what makes a file unreadable (NOTES
    #307); the reference skips a file whose bytes are not UTF-8 as `unreadable`, and a port that
    decodes lossily (JS 0.16) lists it as a skill instead.
    Given a file "root/bad/SKILL.md" containing invalid UTF-8
    When the skills are listed with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill inventory matches:
      """
      {"skills": [],
       "skipped": [{"$partial": true, "location": "{{TMP}}/root/bad/SKILL.md", "reason": "unreadable"}]}
      """

  @spec-3.S3 @partial-clause-3.s3.list-shape @partial-clause-3.s3.skip-reasons
  Scenario: the inventory is unfiltered and includes data skills
    When the skills are listed with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/undescribed", "skills": [{"name": "", "content": "x"}, {"name": "d1", "content": "y"}]}
      """
    Then the skill inventory matches:
      """
      {"skills": {"$unordered": [{"$partial": true, "name": "quiet"}, {"$partial": true, "name": "d1"}]},
       "skipped": [{"$partial": true, "reason": "missing-name"}]}
      """

  @spec-3.S1 @partial-clause-3.s4.directory-byte-identical
  Scenario: a data skill and a directory skill load side by side
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "skills": [{"name": "zeta", "description": "Data zeta", "content": "z"}]}
      """
    When "skill" is executed with:
      """
      {"name": "alpha"}
      """
    Then the output contains "Base directory for this skill: file://{{FIXTURES}}/skills/basic/alpha\n"
    And the output contains "<file>{{FIXTURES}}/skills/basic/alpha/scripts/run.sh</file>"

  @spec-0.5 @clause-3.discovery.glob @partial-clause-0.skills.glob
  Scenario: discovery finds a SKILL.md nested deep in ordinary directories
    Given a file "root/top/SKILL.md" containing:
      """
      ---
      name: top
      description: At the first level.
      ---
      Top.
      """
    And a file "root/a/b/c/d/deep/SKILL.md" containing:
      """
      ---
      name: deep
      description: Six levels down.
      ---
      Deep.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill catalog names are:
      """
      ["top", "deep"]
      """

  @spec-0.5 @lenient @partial-clause-3.discovery.glob @partial-clause-0.skills.glob
  Scenario: a SKILL.md under node_modules or .git is neither required nor forbidden
    §3 says "Recursively glob **/SKILL.md"; the reference and both published ports skip
    node_modules and .git (NOTES #180), so a skill there may or may not be found, while
    the ordinary ones around it must be.
    Given a file "root/top/SKILL.md" containing:
      """
      ---
      name: top
      description: At the first level.
      ---
      Top.
      """
    And a file "root/pkg/lib/deep/SKILL.md" containing:
      """
      ---
      name: deep
      description: Under an ordinary directory.
      ---
      Deep.
      """
    And a file "root/node_modules/vendored/SKILL.md" containing:
      """
      ---
      name: vendored
      description: Inside node_modules.
      ---
      Vendored.
      """
    And a file "root/.git/hooked/SKILL.md" containing:
      """
      ---
      name: hooked
      description: Inside .git.
      ---
      Hooked.
      """
    When the skills are listed with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill inventory matches:
      """
      {"skills": {"$oneOf": [
         {"$unordered": [{"$partial": true, "name": "top"}, {"$partial": true, "name": "deep"}]},
         {"$unordered": [{"$partial": true, "name": "top"}, {"$partial": true, "name": "deep"},
                         {"$partial": true, "name": "vendored"}]},
         {"$unordered": [{"$partial": true, "name": "top"}, {"$partial": true, "name": "deep"},
                         {"$partial": true, "name": "hooked"}]},
         {"$unordered": [{"$partial": true, "name": "top"}, {"$partial": true, "name": "deep"},
                         {"$partial": true, "name": "vendored"}, {"$partial": true, "name": "hooked"}]}]},
       "skipped": []}
      """

  @spec-0.5 @beyond-spec
  Scenario: discovery skips node_modules and .git directories at any depth
    Beyond the SPEC: §3 says "Recursively glob **/SKILL.md" and names no exception; the
    reference skips node_modules and .git at every level, as python and rust-crate do and
    ignore conventions expect (NOTES #180).

    Given a file "root/top/SKILL.md" containing:
      """
      ---
      name: top
      description: At the first level.
      ---
      Top.
      """
    And a file "root/node_modules/vendored/SKILL.md" containing:
      """
      ---
      name: vendored
      description: Inside node_modules.
      ---
      Vendored.
      """
    And a file "root/pkg/node_modules/nested/SKILL.md" containing:
      """
      ---
      name: nested
      description: Inside a nested node_modules.
      ---
      Nested.
      """
    And a file "root/.git/hooked/SKILL.md" containing:
      """
      ---
      name: hooked
      description: Inside .git.
      ---
      Hooked.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill catalog names are:
      """
      ["top"]
      """

  @spec-3 @beyond-spec @partial-clause-3.frontmatter.malformed-graceful
  Scenario: a UTF-8 byte-order mark before the frontmatter fence is not text
    Beyond the SPEC: §3 fences the frontmatter with "---" and says nothing about a byte-order
    mark; the reference reads past a leading BOM (an encoding signature, which YAML itself
    allows at a stream's start), python 0.21 and rust-crate 0.23 see no fence and skip the
    file as missing-name (NOTES #181).

    Given a file "root/bom/SKILL.md" containing a UTF-8 byte-order mark and:
      """
      ---
      name: bom
      description: Saved with a byte-order mark.
      ---
      Body after a BOM.
      """
    And a file "root/plain/SKILL.md" containing:
      """
      ---
      name: plain
      description: No byte-order mark.
      ---
      Plain.
      """
    When the skills are listed with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill inventory matches:
      """
      {"skills": {"$unordered": [
         {"$partial": true, "name": "bom", "description": "Saved with a byte-order mark."},
         {"$partial": true, "name": "plain"}]},
       "skipped": []}
      """

  @spec-3 @lenient @partial-clause-3.frontmatter.malformed-graceful @partial-clause-3.s3.skip-reasons
  Scenario: a byte-order mark before the frontmatter never breaks discovery
    §3 is silent on a BOM (NOTES #181): the file is either read past it or skipped as
    missing-name, and the skill next to it loads either way.
    Given a file "root/bom/SKILL.md" containing a UTF-8 byte-order mark and:
      """
      ---
      name: bom
      description: Saved with a byte-order mark.
      ---
      Body after a BOM.
      """
    And a file "root/plain/SKILL.md" containing:
      """
      ---
      name: plain
      description: No byte-order mark.
      ---
      Plain.
      """
    When the skills are listed with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill inventory matches:
      """
      {"$oneOf": [
        {"skills": {"$unordered": [{"$partial": true, "name": "bom"}, {"$partial": true, "name": "plain"}]},
         "skipped": []},
        {"skills": [{"$partial": true, "name": "plain"}],
         "skipped": [{"$partial": true, "location": "{{TMP}}/root/bom/SKILL.md", "reason": "missing-name"}]}]}
      """

  @spec-3 @lenient @partial-clause-3.frontmatter.ecosystem-lib @partial-clause-3.frontmatter.trimmed
  Scenario: YAML 1.1 and 1.2 scalars may coerce to different strings
    §3 lets each port use its ecosystem's YAML library (PyYAML reads YAML 1.1, where `yes` is
    a boolean and `1e3` a string; YAML 1.2 libraries read `yes` as a string and `1e3` as a
    number) and says only "coerced to string" (NOTES #182).
    Given a file "root/y/SKILL.md" containing:
      """
      ---
      name: yes
      description: 1e3
      ---
      Body.
      """
    When the skills are listed with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill inventory matches:
      """
      {"skills": [{"$partial": true, "name": {"$oneOf": ["yes", "True", "true"]},
                   "description": {"$oneOf": ["1e3", "1000", "1000.0", "1e+03"]}}],
       "skipped": []}
      """

  @spec-3 @lenient @partial-clause-3.frontmatter.ecosystem-lib @partial-clause-3.frontmatter.malformed-graceful
  Scenario: a duplicate frontmatter key is the last value or malformed YAML
    §3's standard parsers differ: PyYAML and SnakeYAML keep the last value, yaml-rust2,
    js yaml and yaml.v3 refuse the mapping, which §3 then reads as malformed (empty
    frontmatter, the skill skipped). Never the first value (NOTES #183).
    Given a file "root/dup/SKILL.md" containing:
      """
      ---
      name: first
      name: second
      description: Two names.
      ---
      Body.
      """
    And a file "root/fine/SKILL.md" containing:
      """
      ---
      name: fine
      description: Still here.
      ---
      Body.
      """
    When the skills are listed with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill inventory matches:
      """
      {"$oneOf": [
        {"skills": {"$unordered": [{"$partial": true, "name": "second", "description": "Two names."},
                                   {"$partial": true, "name": "fine"}]},
         "skipped": []},
        {"skills": [{"$partial": true, "name": "fine"}],
         "skipped": [{"$partial": true, "location": "{{TMP}}/root/dup/SKILL.md",
                      "reason": {"$oneOf": ["malformed-frontmatter", "missing-name"]}}]}]}
      """

  @spec-3 @clause-3.frontmatter.malformed-graceful @partial-clause-3.frontmatter.standard-yaml
  Scenario: a tab-indented frontmatter key is malformed YAML and the skill is skipped
    YAML (1.1 and 1.2) forbids tabs in indentation, so every standard parser refuses the
    block, and §3 reads a refused block as empty frontmatter (NOTES #184).
    Given a file "root/tabbed/SKILL.md" containing "---\nname: tabbed\n\tdescription: Tab-indented.\n---\nBody.\n"
    And a file "root/fine/SKILL.md" containing:
      """
      ---
      name: fine
      description: Still here.
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skill catalog names are:
      """
      ["fine"]
      """

  @spec-0.6 @clause-3.frontmatter.name-required @partial-clause-0.skills-prompt.preamble-and-list
  Scenario: a skill whose description is null is undescribed and left out of the prompt
    Given a file "root/nulldesc/SKILL.md" containing:
      """
      ---
      name: nulldesc
      description:
      ---
      Body.
      """
    And a file "root/fine/SKILL.md" containing:
      """
      ---
      name: fine
      description: Still here.
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skills prompt is:
      """
      Skills provide specialized instructions and workflows for specific tasks.
      Use the skill tool to load a skill when a task matches its description.

      ## Available Skills
      - **fine**: Still here.
      """

  @spec-0.6 @lenient @partial-clause-0.skills-prompt.preamble-and-list @partial-clause-3.skills-prompt.list-heading
  Scenario: a skill whose description is empty after trimming is listed with an empty line or left out
    §0.6 lists "described only" and does not say whether "" describes a skill (NOTES #185).
    Given a file "root/blank/SKILL.md" containing:
      """
      ---
      name: blank
      description: "   "
      ---
      Body.
      """
    And a file "root/fine/SKILL.md" containing:
      """
      ---
      name: fine
      description: Still here.
      ---
      Body.
      """
    And a toolkit built with:
      """
      {"skillsDir": "{{TMP}}/root"}
      """
    Then the skills prompt matches:
      """
      {"$oneOf": [
        "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n\n## Available Skills\n- **blank**: \n- **fine**: Still here.",
        "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n\n## Available Skills\n- **fine**: Still here."]}
      """
